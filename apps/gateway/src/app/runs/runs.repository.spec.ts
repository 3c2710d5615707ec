// The gateway's runs statements, against the real Postgres.
import { randomUUID } from 'node:crypto';
import type { AgentConfig } from '@switchyard/contracts';
import { specDatabase } from '../testing/spec-database';
import { type NewRun, RunsRepository } from './runs.repository';

jest.setTimeout(30_000);

describe(RunsRepository.name, () => {
  const pg = specDatabase('gateway-runs-repository-spec');
  let repo: RunsRepository;

  beforeAll(() => {
    repo = new RunsRepository(pg.ds);
  });

  const existing = { newThread: false, defaultCap: 100 };
  const fresh = { newThread: true, defaultCap: 100 };

  const newRun = (tenantId: string, threadId: string, requestId: string | null): NewRun => ({
    id: randomUUID(),
    tenantId,
    threadId,
    agentId: 'default',
    requestId,
    input: { prompt: 'hi' } as NewRun['input'],
    metadata: { k: 'v' },
    maxSteps: 7,
    agentVersionId: null,
    agentConfig: { name: 'a' } as AgentConfig,
    traceParent: null,
    priority: 'batch',
    afterSeconds: 60,
    nodeTimeouts: null,
  });

  it("inserts a queued run once per request id, and finds it by the tenant's request id", async () => {
    const t = await pg.tenant();
    const thread = await pg.thread(t);
    const first = newRun(t, thread, 'req-1');
    const inserted = await repo.transaction(async (m) => {
      expect(await repo.lockThread(m, t, thread)).toBe(true);
      expect(await repo.lockThread(m, await pg.tenant(), thread)).toBe(false);
      expect(await repo.requestSeen(m, t, 'req-1')).toBe(false);
      return repo.insertRun(m, first, existing);
    });
    expect(inserted?.row).toEqual({
      id: first.id,
      thread_id: thread,
      status: 'queued',
      created_at: expect.any(Date),
    });
    const again = await repo.transaction((m) => repo.insertRun(m, newRun(t, thread, 'req-1'), existing));
    expect(again.row).toBeUndefined();
    expect(await repo.transaction((m) => repo.requestSeen(m, t, 'req-1'))).toBe(true);
    expect((await repo.byRequestId(t, 'req-1')).id).toBe(first.id);
    const row = await pg.db
      .selectFrom('runs')
      .select(['max_steps', 'priority', 'metadata', 'input'])
      .select((eb) => eb('not_before', '>', eb.ref('created_at')).as('delayed'))
      .where('id', '=', first.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({
      max_steps: 7,
      priority: 'batch',
      metadata: { k: 'v' },
      input: { prompt: 'hi' },
      delayed: true,
    });
  });

  it('inserts a new thread with its run, and nothing of either when the request id was seen', async () => {
    const t = await pg.tenant();
    const threadOf = async (id: string) =>
      pg.db.selectFrom('threads').select(['tenant_id', 'agent_id']).where('id', '=', id).executeTakeFirst();
    const run = newRun(t, randomUUID(), 'req-2');
    const made = await repo.transaction((m) => repo.insertRun(m, run, fresh));
    expect(made.row?.thread_id).toBe(run.threadId);
    expect(await threadOf(run.threadId)).toEqual({ tenant_id: t, agent_id: 'default' });
    // The caller rolls back on a seen request id (CreateRunUseCase): the thread goes with it.
    const dup = newRun(t, randomUUID(), 'req-2');
    await expect(
      repo.transaction(async (m) => {
        if (!(await repo.insertRun(m, dup, fresh)).row) {
          throw new Error('seen');
        }
      }),
    ).rejects.toThrow('seen');
    expect(await threadOf(dup.threadId)).toBeUndefined();
  });

  it("answers the tenant's load and the thread's active runs as they were before the new run", async () => {
    const t = await pg.tenant({ max_active_runs: 5 });
    const thread = await pg.thread(t);
    const queued = await pg.run(t, thread, {
      status: 'queued',
      created_at: new Date('2026-01-01T00:00:00Z'),
    });
    const waiting = await pg.run(t, thread, {
      status: 'waiting',
      created_at: new Date('2026-01-02T00:00:00Z'),
    });
    await pg.run(t, thread, { status: 'succeeded' });
    const other = await pg.tenant();
    await pg.run(other, await pg.thread(other), { status: 'queued' });
    const made = await repo.transaction((m) => repo.insertRun(m, newRun(t, thread, null), existing));
    expect(made.row).toBeDefined();
    expect(made.load).toEqual({ active: 2, ahead: 1, cap: 5, runningCap: null });
    expect(made.busy).toEqual([queued, waiting]);
    const alone = await repo.transaction((m) => repo.insertRun(m, newRun(other, randomUUID(), null), fresh));
    expect(alone.load).toEqual({ active: 1, ahead: 1, cap: null, runningCap: null });
    expect(alone.busy).toEqual([]);
  });

  it("inserts neither the run nor its thread at the tenant's cap, and says why", async () => {
    const t = await pg.tenant();
    const thread = await pg.thread(t);
    await pg.run(t, thread, { status: 'running' });
    await pg.run(t, thread, { status: 'queued' });
    const run = newRun(t, randomUUID(), null);
    const refused = await repo.transaction((m) => repo.insertRun(m, run, { newThread: true, defaultCap: 2 }));
    expect(refused.row).toBeUndefined();
    expect(refused.load).toMatchObject({ active: 2, cap: null });
    const rows = await pg.db
      .selectFrom('runs')
      .select('id')
      .where('id', '=', run.id)
      .unionAll(pg.db.selectFrom('threads').select('id').where('id', '=', run.threadId))
      .execute();
    expect(rows).toEqual([]);
    // The tenant's own cap wins over the default.
    const own = await pg.tenant({ max_active_runs: 3 });
    const ownThread = await pg.thread(own);
    await pg.run(own, ownThread, { status: 'running' });
    await pg.run(own, ownThread, { status: 'running' });
    const third = await repo.transaction((m) =>
      repo.insertRun(m, newRun(own, ownThread, null), { newThread: false, defaultCap: 2 }),
    );
    expect(third.row).toBeDefined();
  });

  it("pages the tenant's runs newest first, filtered, after a keyset", async () => {
    const t = await pg.tenant();
    const thread = await pg.thread(t);
    const at = (s: string) => new Date(`2026-01-0${s}T00:00:00Z`);
    const r1 = await pg.run(t, thread, { status: 'succeeded', created_at: at('1') });
    const r2 = await pg.run(t, thread, { status: 'failed', created_at: at('2') });
    const r3 = await pg.run(t, thread, { status: 'succeeded', created_at: at('3') });
    await pg.run(await pg.tenant(), await pg.thread(t), { created_at: at('2') });
    const none = { micros: null, id: null };
    const all = await repo.page(t, {}, none, 10);
    expect(all.map((r) => r.id)).toEqual([r3, r2, r1]);
    expect(all[0].at_us).toBe(String(at('3').getTime() * 1000));
    const done = await repo.page(t, { status: ['succeeded'] }, none, 10);
    expect(done.map((r) => r.id)).toEqual([r3, r1]);
    const after = await repo.page(t, {}, { micros: all[0].at_us, id: r3 }, 1);
    expect(after.map((r) => r.id)).toEqual([r2]);
    const windowed = await repo.page(
      t,
      { since: at('2').toISOString(), until: at('3').toISOString() },
      none,
      10,
    );
    expect(windowed.map((r) => r.id)).toEqual([r2]);
    expect(await repo.get(t, r2)).toMatchObject({ id: r2, status: 'failed', priority: 'interactive' });
    expect(await repo.get(await pg.tenant(), r2)).toBeUndefined();
  });

  it("flags only the tenant's active run as to be cancelled", async () => {
    const t = await pg.tenant();
    const thread = await pg.thread(t);
    const active = await pg.run(t, thread, { status: 'running' });
    const ended = await pg.run(t, thread, { status: 'succeeded' });
    expect(await repo.flagCancelOfTenant(await pg.tenant(), active)).toBe(false);
    expect(await repo.flagCancelOfTenant(t, ended)).toBe(false);
    expect(await repo.flagCancelOfTenant(t, active)).toBe(true);
  });
});
