import { TestStack, postBurst, waitFor } from '@switchyard/testing';

// Per-tenant limits through the admin API, and fairness between tenants: a tenant's burst of 500
// runs waits behind its own running cap (SWITCHYARD_TENANT_MAX_RUNNING, 64 by default) instead of
// filling every task queue, so another tenant's single run goes through among the first.

const ADMIN = `admin_${'z'.repeat(24)}`;
let stack: TestStack;

beforeAll(async () => {
  stack = await TestStack.start({
    script: 'apps/gateway/test/fixtures/skeleton.script.json',
    env: { SWITCHYARD_ADMIN_TOKEN: ADMIN },
  });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

const admin = { Authorization: `Bearer ${ADMIN}` };
const as = (key: string) => ({ Authorization: `Bearer ${key}` });

it("sets a tenant's rate limit and active-run cap; the defaults apply to the others", async () => {
  const t = await stack.newTenant('limited', ADMIN);
  const patched = await stack.api(
    'PATCH',
    `/v1/admin/tenants/${t.id}`,
    { rate_limit_per_second: 1, rate_limit_burst: 2, max_active_runs: 1 },
    admin,
  );
  expect(patched.status).toBe(200);
  expect(patched.body).toMatchObject({ rate_limit_per_second: 1, rate_limit_burst: 2, max_active_runs: 1 });
  const first = await stack.api('POST', '/v1/runs', { input: { prompt: '[slow] hold on' } }, as(t.key));
  expect(first.status).toBe(202);
  // The active-run cap: one run under way, the next is refused.
  const second = await stack.api('POST', '/v1/runs', { input: { prompt: 'two' } }, as(t.key));
  expect(second.status).toBe(429);
  expect(second.body.error.message).toContain('limit 1');
  // The rate: the burst of 2 is spent (two requests above), the third is refused with Retry-After.
  const third = await stack.api('GET', `/v1/runs/${first.body.run_id}`, undefined, as(t.key));
  expect(third.status).toBe(429);
  // Other tenants keep the defaults.
  expect((await stack.api('GET', `/v1/runs/${first.body.run_id}`)).status).toBe(404);
  // Back to the defaults; bad values are refused by name.
  const reset = await stack.api(
    'PATCH',
    `/v1/admin/tenants/${t.id}`,
    { rate_limit_per_second: null, rate_limit_burst: null, max_active_runs: null },
    admin,
  );
  expect(reset.body).toMatchObject({ rate_limit_per_second: null, max_active_runs: null });
  for (const [body, field] of [
    [{ max_running_runs: 0 }, 'max_running_runs'],
    [{}, '(body)'],
    [{ rate_limit_burst: 'x' }, 'rate_limit_burst'],
  ] as const) {
    const res = await stack.api('PATCH', `/v1/admin/tenants/${t.id}`, body, admin);
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
  }
});

it("a tenant's burst of 500 runs does not hold back another tenant's single run", async () => {
  const a = await stack.newTenant('bursty', ADMIN);
  const b = await stack.newTenant('quiet', ADMIN);
  await stack.api('PATCH', `/v1/admin/tenants/${a.id}`, { max_active_runs: 1000 }, admin);
  // B alone first: what its run takes on an idle stack.
  const t0 = Date.now();
  const alone = await stack.api('POST', '/v1/runs', { input: { prompt: 'what is 2+3*4?' } }, as(b.key));
  expect((await stack.ended(alone.body.run_id, 60_000, as(b.key))).status).toBe('succeeded');
  const idleMs = Date.now() - t0;

  // As a well-behaved client sends a burst (postBurst): 500 requests, a hundred in flight at a time,
  // each one sent again after a 503's Retry-After (the request_id keeps a retried run from being
  // created twice).
  const { responses: burst, retried } = await postBurst(stack, {
    key: a.key,
    count: 500,
    label: 'burst',
    body: () => ({ input: { prompt: 'what is 2+3*4?' } }),
  });
  // 200: a retry found the run its first attempt had created after all.
  expect(burst.filter((r) => r.status !== 202 && r.status !== 200)).toEqual([]);
  if (retried) {
    process.stdout.write(`fairness: ${retried} burst request(s) were answered 503 and sent again\n`);
  }
  const t1 = Date.now();
  const run = await stack.api('POST', '/v1/runs', { input: { prompt: 'what is 6*7?' } }, as(b.key));
  expect((await stack.ended(run.body.run_id, 120_000, as(b.key))).status).toBe('succeeded');
  const underLoadMs = Date.now() - t1;
  const [counts] = await stack.sql<{ finished: number; running: number }>(
    `SELECT count(*) FILTER (WHERE finished_at IS NOT NULL)::int AS finished,
            count(*) FILTER (WHERE status = 'running')::int AS running
     FROM runs WHERE tenant_id = $1`,
    [a.id],
  );
  const [bRun] = await stack.sql<{ start_ms: number; run_ms: number }>(
    `SELECT (extract(epoch FROM started_at - created_at) * 1000)::int AS start_ms,
            (extract(epoch FROM finished_at - started_at) * 1000)::int AS run_ms FROM runs WHERE id = $1`,
    [run.body.run_id],
  );
  process.stdout.write(`fairness: B's run waited ${bRun.start_ms} ms to start, then ran ${bRun.run_ms} ms\n`);
  process.stdout.write(
    `fairness: B alone ${idleMs} ms, B under A's burst ${underLoadMs} ms; A had ${counts.finished}/500 finished, ${counts.running} running\n`,
  );
  // A ran at most its cap at once, and B's run did not wait for A's burst to drain: most of A's
  // runs had not even finished when B's had.
  expect(counts.running).toBeLessThanOrEqual(64);
  expect(counts.finished).toBeLessThan(250);
  // Fair dispatch: B's tasks went ahead of A's tasks that were waiting at the same node before
  // them (first in, first out, none would). Per B task: A's tasks of its node dispatched before it
  // and started after it.
  const [{ overtaken, slowest }] = await stack.sql<{ overtaken: number; slowest: number }>(
    `WITH started AS (
       SELECT t.node, t.created_at, (d.delta->'action'->>'started_at')::timestamptz AS started_at, r.tenant_id
       FROM run_tasks t JOIN runs r ON r.id = t.run_id JOIN state_deltas d ON d.task_id = t.id
       WHERE r.tenant_id IN ($1, $2))
     SELECT (SELECT count(*)::int FROM started b JOIN started a
               ON a.node = b.node AND a.tenant_id = $1 AND a.created_at < b.created_at AND a.started_at > b.started_at
             WHERE b.tenant_id = $2 AND b.created_at >= $3) AS overtaken,
            (SELECT max(extract(epoch FROM b.started_at - b.created_at) * 1000)::int FROM started b
             WHERE b.tenant_id = $2 AND b.created_at >= $3) AS slowest`,
    [a.id, b.id, new Date(t1)],
  );
  process.stdout.write(`fairness: B's tasks overtook ${overtaken} of A's; B's longest wait ${slowest} ms\n`);
  expect(overtaken).toBeGreaterThanOrEqual(5);
}, 180_000);

it('runs exactly max_running_runs of a tenant at once, never more, and starts the rest as those end', async () => {
  const t = await stack.newTenant('capped', ADMIN);
  const set = await stack.api('PATCH', `/v1/admin/tenants/${t.id}`, { max_running_runs: 2 }, admin);
  expect(set.status).toBe(200);
  const created = await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      stack.api('POST', '/v1/runs', { input: { prompt: `what is ${i}+1?` } }, as(t.key)),
    ),
  );
  expect(created.map((r) => r.status)).toEqual(Array(6).fill(202));
  const ids = created.map((r) => r.body.run_id as string);
  // Sample how many of the tenant's runs are running until all of them ended.
  const seen: number[] = [];
  for (const deadline = Date.now() + 90_000; Date.now() < deadline;) {
    const [row] = await stack.sql<{ running: number; ended: number }>(
      `SELECT count(*) FILTER (WHERE status = 'running')::int AS running,
              count(*) FILTER (WHERE finished_at IS NOT NULL)::int AS ended
       FROM runs WHERE tenant_id = $1`,
      [t.id],
    );
    seen.push(row.running);
    if (row.ended === ids.length) {
      break;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  // The cap is exact: two at a time (the run being started counts itself), never three.
  expect(Math.max(...seen)).toBe(2);
  for (const id of ids) {
    expect((await stack.ended(id, 10_000, as(t.key))).status).toBe('succeeded');
  }
  // Each run held one of the tenant's two running slots while it ran and freed it at its end.
  const slots = await stack.sql<{ slot: number; run_id: string | null }>(
    'SELECT slot, run_id FROM tenant_run_slots WHERE tenant_id = $1 ORDER BY slot',
    [t.id],
  );
  expect(slots).toEqual([
    { slot: 0, run_id: null },
    { slot: 1, run_id: null },
  ]);
  // A slot left taken by a run that is not running (a leak) is freed by the reaper's next pass.
  await stack.sql('UPDATE tenant_run_slots SET run_id = $2 WHERE tenant_id = $1 AND slot = 0', [
    t.id,
    ids[0],
  ]);
  await waitFor(
    'the leaked slot to be freed',
    async () =>
      (
        await stack.sql<{ run_id: string | null }>(
          'SELECT run_id FROM tenant_run_slots WHERE tenant_id = $1 AND slot = 0',
          [t.id],
        )
      )[0].run_id === null,
    10_000,
  );
}, 120_000);

it("starts a tenant's interactive run ahead of its own batch runs at every node", async () => {
  const t = await stack.newTenant('mixed', ADMIN);
  await stack.api(
    'PATCH',
    `/v1/admin/tenants/${t.id}`,
    { max_active_runs: 1000, max_running_runs: 500 },
    admin,
  );
  // 100 batch runs whose intake takes 1.5 s each: the planner's 16 slots need ~10 s for them all.
  const batch = await Promise.all(
    Array.from({ length: 100 }, (_, i) =>
      stack.api(
        'POST',
        '/v1/runs',
        { input: { prompt: `[slow-intake] batch ${i}: what is 2+3*4?` }, priority: 'batch' },
        as(t.key),
      ),
    ),
  );
  expect(batch.map((r) => r.status)).toEqual(Array(100).fill(202));
  const live = await stack.api('POST', '/v1/runs', { input: { prompt: 'what is 6*7?' } }, as(t.key));
  expect(live.status).toBe(202);
  expect((await stack.ended(live.body.run_id, 120_000, as(t.key))).status).toBe('succeeded');
  const [counts] = await stack.sql<{ finished: number; intakes: number }>(
    `SELECT count(*) FILTER (WHERE r.finished_at IS NOT NULL)::int AS finished,
            (SELECT count(*)::int FROM run_tasks k JOIN runs b ON b.id = k.run_id
               WHERE b.tenant_id = $1 AND b.priority = 'batch' AND k.node = 'intake' AND k.status = 'applied') AS intakes
     FROM runs r WHERE r.tenant_id = $1 AND r.priority = 'batch'`,
    [t.id],
  );
  process.stdout.write(
    `fairness: the interactive run ended with ${counts.finished}/100 batch runs finished, ${counts.intakes} intakes applied\n`,
  );
  // First in, first out, its intake would have waited for all 100 batch intakes.
  expect(counts.intakes).toBeLessThan(60);
  for (const r of batch) {
    expect((await stack.ended(r.body.run_id, 120_000, as(t.key))).status).toBe('succeeded');
  }
}, 240_000);
