import { KeyPool } from './key-pool';
import {
  LlmCallException,
  classifyLlmError,
  httpStatusOf,
  redactSecrets,
  retryAfterMsOf,
} from './llm-errors';

const shared = (id: string) => ({ id, tenant_id: null });
const owned = (id: string, tenant: string) => ({ id, tenant_id: tenant });

describe(KeyPool.name, () => {
  it("puts the tenant's own keys first and never offers another tenant's key", () => {
    const pool = new KeyPool();
    const keys = [shared('s1'), owned('a1', 'A'), owned('b1', 'B'), shared('s2')];
    expect(pool.order('v', keys, 'A').map((k) => k.id)).toEqual(['a1', 's1', 's2']);
    expect(pool.order('v', keys, undefined).map((k) => k.id)).toEqual(['s2', 's1']);
    expect(pool.order('v', keys, 'C').map((k) => k.id)).not.toContain('a1');
  });

  it("puts a business's keys before the tenant's, and never offers another business's key", () => {
    const pool = new KeyPool();
    const biz = (id: string, tenant: string, business: string) => ({
      id,
      tenant_id: tenant,
      business_id: business,
    });
    const keys = [shared('s1'), owned('a1', 'A'), biz('shop1', 'A', 'shop'), biz('help1', 'A', 'help')];
    expect(pool.order('v', keys, 'A', 'shop').map((k) => k.id)).toEqual(['shop1', 'a1', 's1']);
    expect(pool.order('v', keys, 'A').map((k) => k.id)).toEqual(['a1', 's1']);
    expect(pool.order('v', keys, 'B', 'shop').map((k) => k.id)).toEqual(['s1']);
  });

  it('rotates over the shared keys call after call', () => {
    const pool = new KeyPool();
    const keys = [shared('k1'), shared('k2'), shared('k3')];
    const firsts = [1, 2, 3, 4].map(() => pool.order('v', keys, undefined)[0].id);
    expect(firsts).toEqual(['k1', 'k2', 'k3', 'k1']);
  });

  it('lets a key rest until its time is up', () => {
    let now = 1_000;
    const pool = new KeyPool(() => now);
    pool.rest('k1', 500);
    expect(pool.restingFor('k1')).toBe(500);
    now += 499;
    expect(pool.restingFor('k1')).toBe(1);
    now += 1;
    expect(pool.restingFor('k1')).toBe(0);
    expect(pool.restingFor('never-rested')).toBe(0);
  });
});

describe('LLM errors', () => {
  it('reads Retry-After as seconds, as an HTTP date, and retry-after-ms first', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMsOf({ headers: new Headers({ 'retry-after': '7' }) })).toBe(7000);
    expect(retryAfterMsOf({ headers: { 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' } }, now)).toBe(30_000);
    expect(retryAfterMsOf({ headers: new Headers({ 'retry-after': '7', 'retry-after-ms': '250' }) })).toBe(
      250,
    );
    expect(retryAfterMsOf({ headers: new Headers() })).toBeUndefined();
    expect(retryAfterMsOf(new Error('no headers'))).toBeUndefined();
  });

  it('finds the status of OpenAI/Anthropic (status) and Ollama (status_code) errors', () => {
    expect(httpStatusOf({ status: 429 })).toBe(429);
    expect(httpStatusOf({ status_code: 401 })).toBe(401);
    expect(httpStatusOf(new Error('ECONNREFUSED'))).toBeUndefined();
  });

  it('classifies 4xx (but 408/429) as not retryable, the rest as retryable', () => {
    expect(classifyLlmError({ status: 400, message: 'bad' })).toMatchObject({
      code: 'llm_rejected',
      retryable: false,
    });
    expect(classifyLlmError({ status: 429, message: 'slow' })).toMatchObject({ retryable: true });
    expect(classifyLlmError({ status: 503, message: 'down' })).toMatchObject({ retryable: true });
    expect(classifyLlmError(new Error('socket hang up'))).toMatchObject({
      code: 'llm_unavailable',
      retryable: true,
    });
    const own = new LlmCallException('x', 'budget_exceeded', false);
    expect(classifyLlmError(own)).toBe(own);
  });

  it('redacts secrets wherever they appear', () => {
    expect(redactSecrets('bad key sk-abc123, again sk-abc123', ['sk-abc123'])).toBe(
      'bad key [redacted], again [redacted]',
    );
  });
});
