import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { DEV_SECRET_KEY, SecretBox } from '@switchyard/config';
import { newTenant, openTestDatabase } from './registry-db.fixture';
import { RegistryStore } from './registry.store';
import type { MeteredCall } from '@switchyard/contracts';
import { UsageMeter } from './usage-meter';

let ds: DataSource;
let modelId: string;

beforeAll(async () => {
  ds = await openTestDatabase('switchyard_test_usage_meter');
  const store = storeOn(0);
  modelId = (await store.get()).models[0].id;
});

function storeOn(ttlMs: number): RegistryStore {
  const env = {
    SWITCHYARD_LLM_BASE_URL: 'http://127.0.0.1:9/v1',
    SWITCHYARD_LLM_API_KEY: 'env-key',
    SWITCHYARD_LLM_MODEL: 'scripted',
    SWITCHYARD_LLM_TIMEOUT_MS: 10_000,
    SWITCHYARD_LLM_MAX_RETRIES: 0,
  };
  return new RegistryStore(ds, new SecretBox(DEV_SECRET_KEY), env, ttlMs);
}

afterAll(async () => {
  await ds.destroy();
});

const call = (tenant: string, tokens: number, over: Partial<MeteredCall> = {}): MeteredCall => ({
  call_id: randomUUID(),
  tenant_id: tenant,
  business_id: null,
  run_id: randomUUID(),
  task_id: randomUUID(),
  node: 'planner',
  attempt: 1,
  model_id: modelId,
  key_id: null,
  prompt_tokens: tokens - 1,
  completion_tokens: 1,
  total_tokens: tokens,
  cost: 0.001,
  ...over,
});

async function usage(tenant: string): Promise<{ rows: number; tokens: number; used: number }> {
  const [row] = (await ds.query(
    `SELECT (SELECT count(*)::int FROM model_usage WHERE tenant_id = $1) AS rows,
            (SELECT COALESCE(sum(total_tokens), 0)::int FROM model_usage WHERE tenant_id = $1) AS tokens,
            (SELECT tokens_used::int FROM tenants WHERE id = $1) AS used`,
    [tenant],
  )) as { rows: number; tokens: number; used: number }[];
  return row;
}

describe('UsageMeter', () => {
  it('records calls that end together in shared writes: every row, every token, each tenant once per write', async () => {
    const meter = new UsageMeter(ds, 0);
    const [a, b] = [await newTenant(ds), await newTenant(ds)];
    const before = Number(
      (
        (await ds.query('SELECT n_tup_upd::int AS n FROM pg_stat_user_tables WHERE relname = $1', [
          'tenants',
        ])) as {
          n: number;
        }[]
      )[0].n,
    );
    // 60 calls of two tenants recorded at once; each promise resolves once its write committed.
    await Promise.all(Array.from({ length: 60 }, (_, i) => meter.record(call(i % 2 ? a : b, 10 + i))));
    const ua = await usage(a);
    const ub = await usage(b);
    const sum = (odd: boolean) =>
      Array.from({ length: 60 }, (_, i) => i)
        .filter((i) => (i % 2 === 1) === odd)
        .reduce((n, i) => n + 10 + i, 0);
    expect(ua).toEqual({ rows: 30, tokens: sum(true), used: sum(true) });
    expect(ub).toEqual({ rows: 30, tokens: sum(false), used: sum(false) });
    // The first call went out alone, the other 59 in the next write: far fewer tenant updates
    // than calls (statistics are flushed by the backend within a second).
    await new Promise((r) => setTimeout(r, 1100));
    const after = Number(
      (
        (await ds.query('SELECT n_tup_upd::int AS n FROM pg_stat_user_tables WHERE relname = $1', [
          'tenants',
        ])) as {
          n: number;
        }[]
      )[0].n,
    );
    expect(after - before).toBeLessThan(10);
  });

  it('bills a call whose model was deleted since: its row keeps no model, the tokens count', async () => {
    const meter = new UsageMeter(ds, 0);
    const t = await newTenant(ds);
    const gone = randomUUID(); // no such model: the foreign key would refuse the row
    await Promise.all([meter.record(call(t, 3)), ...[5, 7].map((n) => meter.record(call(t, n)))]);
    await meter.record(call(t, 11, { model_id: gone }));
    expect(await usage(t)).toEqual({ rows: 4, tokens: 26, used: 26 });
    const [row] = (await ds.query(
      'SELECT model_id FROM model_usage WHERE tenant_id = $1 AND total_tokens = 11',
      [t],
    )) as { model_id: string | null }[];
    expect(row.model_id).toBeNull();
  });

  it('bills a call once however often it is written, alone or among others', async () => {
    const meter = new UsageMeter(ds, 0);
    const t = await newTenant(ds);
    const once = call(t, 40);
    await meter.record(once);
    await Promise.all([meter.record(once), meter.record(call(t, 2)), meter.record({ ...once })]);
    expect(await usage(t)).toEqual({ rows: 2, tokens: 42, used: 42 });
  });

  it('still refuses a call once the recorded usage spent the budget', async () => {
    const meter = new UsageMeter(ds, 60_000);
    const t = await newTenant(ds, 100);
    await meter.checkBudget(t);
    await Promise.all([meter.record(call(t, 60)), meter.record(call(t, 50))]);
    await expect(meter.checkBudget(t)).rejects.toMatchObject({ code: 'budget_exceeded' });
  });
});

describe('RegistryStore revision reads', () => {
  it('sees a change committed before the call even while other calls share reads', async () => {
    const store = storeOn(60_000);
    await store.get();
    const reads: string[] = [];
    const query = ds.query.bind(ds);
    const spy = jest.spyOn(ds, 'query').mockImplementation((sql: string, ...rest) => {
      if (sql.includes('FROM registry_revision')) {
        reads.push(sql);
      }
      return query(sql, ...rest);
    });
    try {
      // Calls in flight, then a change commits (a new model), then a call starts: it must see it.
      const early = Array.from({ length: 20 }, () => store.get());
      const name = `m-${randomUUID()}`;
      await query(
        `INSERT INTO models (name, vendor_id, category) SELECT $1, id, 'text' FROM vendors WHERE name = 'default'`,
        [name],
      );
      const late = await store.get();
      expect(late.models.map((m) => m.name)).toContain(name);
      await Promise.all(early);
      // 21 calls, few reads: the first alone, the others sharing the next ones.
      expect(reads.length).toBeLessThanOrEqual(4);
    } finally {
      spy.mockRestore();
    }
  });
});
