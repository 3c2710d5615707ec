import type { ArgumentsHost } from '@nestjs/common';
import { ApiExceptionFilter } from './api-exception.filter';

function respond(exception: unknown) {
  const sent: { status?: number; body?: unknown; headers: Record<string, string> } = { headers: {} };
  const res = {
    headersSent: false,
    setHeader: (k: string, v: string) => (sent.headers[k] = v),
    status(code: number) {
      sent.status = code;
      return this;
    },
    json: (body: unknown) => (sent.body = body),
    end: () => undefined,
  };
  const host = { switchToHttp: () => ({ getResponse: () => res }) } as unknown as ArgumentsHost;
  new ApiExceptionFilter().catch(exception, host);
  return sent;
}

describe(ApiExceptionFilter.name, () => {
  it('answers a database pool that had no connection free in time with 503 and Retry-After, not 500', () => {
    const sent = respond(new Error('timeout exceeded when trying to connect'));
    expect(sent.status).toBe(503);
    expect(sent.headers['Retry-After']).toBe('1');
    expect(sent.body).toMatchObject({ error: { code: 'unavailable' } });
  });

  it('keeps anything else unknown a 500 without details', () => {
    const sent = respond(new Error('something broke at line 3'));
    expect(sent.status).toBe(500);
    expect(sent.headers['Retry-After']).toBeUndefined();
    expect(sent.body).toEqual({ error: { code: 'internal', message: 'internal error' } });
  });
});
