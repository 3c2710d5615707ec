import { ApiException } from '../http/api.exception';
import { decodeUsageCursor, encodeUsageCursor } from './usage-cursor';

describe('usage cursor', () => {
  it('round-trips a position exactly, microseconds included', () => {
    const p = { created_at: '2026-11-22T07:41:51.123456Z', id: '9007199254740993' };
    const cursor = encodeUsageCursor(p);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeUsageCursor(cursor)).toEqual(p);
  });

  it.each([
    ['not base64 JSON', '%%%'],
    ['JSON of the wrong shape', Buffer.from('{"x":1}').toString('base64url')],
    ['a millisecond time', encodeUsageCursor({ created_at: '2026-11-22T07:41:51.123Z', id: '1' })],
    ['a non-numeric id', encodeUsageCursor({ created_at: '2026-11-22T07:41:51.123456Z', id: '1; --' })],
  ])('refuses %s as a 400 naming the cursor', (_what, cursor) => {
    let caught: unknown;
    try {
      decodeUsageCursor(cursor);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ApiException);
    expect((caught as ApiException).code).toBe('invalid_request');
    expect((caught as ApiException).details).toEqual([expect.objectContaining({ field: 'cursor' })]);
  });
});
