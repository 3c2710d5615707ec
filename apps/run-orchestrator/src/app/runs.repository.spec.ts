// RunsRepository against the real Postgres (a database of its own, use-cases.fixture): each
// statement of the periodic jobs, a cancel and a run ended from outside its steps.
import { randomUUID } from 'node:crypto';
import { kyselyTransaction } from '@switchyard/persistence';
import { RunsRepository } from './runs.repository';
import { createTenant, queueRun, useOrchestrator } from './use-cases.fixture';

describe(RunsRepository.name, () => {
  const o = useOrchestrator('runs_repository');
  let runs: RunsRepository;
  beforeAll(() => {
    runs = new RunsRepository(o.ds);
  });

  /** A run of a new thread, ended `hoursAgo` (the thread marked delete-when-done when `stateless`). */
  async function endedRun(hoursAgo: number, stateless = false): Promise<{ runId: string; threadId: string }> {
    const queued = await queueRun(o.ds, await createTenant(o.ds));
    await o.ds.query(
      `UPDATE runs SET status = 'succeeded', finished_at = now() - make_interval(hours => $2) WHERE id = $1`,
      [queued.runId, hoursAgo],
    );
    await o.ds.query('UPDATE threads SET delete_when_done = $2 WHERE id = $1', [queued.threadId, stateless]);
    return queued;
  }

  it('reads a started run’s pending tasks and locks its row as a RunRow', async () => {
    const { runId } = await queueRun(o.ds, await createTenant(o.ds), { prompt: 'hi', maxSteps: 7 });
    await o.startRun.execute(runId);

    const pending = await runs.pendingTasks(runId);
    expect(pending.map((t) => t.node)).toEqual(['intake']);
    const [task] = (await o.ds.query('SELECT id FROM run_tasks WHERE run_id = $1', [runId])) as {
      id: string;
    }[];
    expect(pending[0].id).toBe(task.id);

    const run = await kyselyTransaction(o.ds, (tx) => runs.lockRun(tx, runId));
    expect(run).toMatchObject({ id: runId, status: 'running', max_steps: 7, cancel_requested: false });
    expect(run?.input.prompt).toBe('hi');
    expect(await kyselyTransaction(o.ds, (tx) => runs.lockRun(tx, randomUUID()))).toBeUndefined();
  });

  it('counts the runs not yet over and the outbox backlog', async () => {
    await queueRun(o.ds, await createTenant(o.ds));
    const [{ n: queued }] = (await o.ds.query(
      `SELECT count(*)::int AS n FROM runs WHERE status = 'queued'`,
    )) as {
      n: number;
    }[];
    expect((await runs.activeRuns()).find((r) => r.status === 'queued')?.n).toBe(queued);
    expect((await runs.activeRuns()).every((r) => ['queued', 'running', 'waiting'].includes(r.status))).toBe(
      true,
    );

    const [{ n }] = (await o.ds.query(
      'SELECT count(*)::int AS n FROM run_tasks WHERE published_at IS NULL',
    )) as {
      n: number;
    }[];
    const backlog = await runs.outboxBacklog();
    expect(backlog).toEqual({ n, age: expect.any(Number) });
  });

  it('finds the threads whose delayed run is due, not those still waiting', async () => {
    const due = await queueRun(o.ds, await createTenant(o.ds));
    const later = await queueRun(o.ds, await createTenant(o.ds));
    await o.ds.query(`UPDATE runs SET not_before = now() - interval '1 second' WHERE id = $1`, [due.runId]);
    await o.ds.query(`UPDATE runs SET not_before = now() + interval '1 hour' WHERE id = $1`, [later.runId]);

    const threads = await runs.dueDelayedThreads(100);
    expect(threads).toContain(due.threadId);
    expect(threads).not.toContain(later.threadId);
    expect(await runs.dueDelayedThreads(0)).toEqual([]);
  });

  it('deletes the expired store items only, at most `limit` a statement', async () => {
    const tenantId = await createTenant(o.ds);
    const put = (key: string, expires: string) =>
      o.ds.query(
        `INSERT INTO store_items (tenant_id, namespace, key, value, expires_at)
         VALUES ($1, '{ns}', $2, '{}', now() + $3::interval)`,
        [tenantId, key, expires],
      );
    await put('gone-1', '-1 minute');
    await put('gone-2', '-1 minute');
    await put('kept', '1 hour');

    expect(await runs.deleteExpiredStoreItems(1)).toBe(1);
    expect(await runs.deleteExpiredStoreItems(1000)).toBe(1);
    expect(await runs.deleteExpiredStoreItems(1000)).toBe(0);
    const left = (await o.ds.query('SELECT key FROM store_items WHERE tenant_id = $1', [tenantId])) as {
      key: string;
    }[];
    expect(left).toEqual([{ key: 'kept' }]);
  });

  it('locks the done stateless threads, not those with a run under way or a webhook to send', async () => {
    const done = await endedRun(0, true);
    const kept = await endedRun(0, false);
    const busy = await endedRun(0, true);
    await o.ds.query(
      `INSERT INTO runs (id, tenant_id, thread_id, agent_id, status, input)
       SELECT gen_random_uuid(), tenant_id, thread_id, agent_id, 'running', input FROM runs WHERE id = $1`,
      [busy.runId],
    );
    const hooked = await endedRun(0, true);
    await o.ds.query(
      `INSERT INTO webhook_deliveries (run_id, tenant_id, url)
       SELECT id, tenant_id, 'http://127.0.0.1:9/hook' FROM runs WHERE id = $1`,
      [hooked.runId],
    );

    const ids = await kyselyTransaction(o.ds, (tx) => runs.lockDoneStatelessThreads(tx, 200));
    expect(ids).toContain(done.threadId);
    for (const t of [kept, busy, hooked]) {
      expect(ids).not.toContain(t.threadId);
    }
  });

  it('finds and deletes the bookkeeping of runs finished before the cutoff', async () => {
    const old = await endedRun(48);
    const recent = await endedRun(0);
    for (const r of [old, recent]) {
      await o.ds.query(
        `INSERT INTO run_tasks (id, run_id, thread_id, turn, step, seq, call_index, node, subject, version, deadline, status)
         VALUES (gen_random_uuid(), $1, $2, 1, 1, 0, 0, 'intake', 'sy.task.planner.intake', 0, now(), 'applied')`,
        [r.runId, r.threadId],
      );
    }
    const cutoff = new Date(Date.now() - 24 * 3600_000);

    const ids = await kyselyTransaction(o.ds, (tx) => runs.finishedRunsWithBookkeeping(tx, cutoff, 500));
    expect(ids).toContain(old.runId);
    expect(ids).not.toContain(recent.runId);
    await kyselyTransaction(o.ds, (tx) => runs.deleteRunBookkeeping(tx, [old.runId]));
    const tasks = (await o.ds.query('SELECT run_id FROM run_tasks WHERE run_id = ANY($1::uuid[])', [
      [old.runId, recent.runId],
    ])) as { run_id: string }[];
    expect(tasks).toEqual([{ run_id: recent.runId }]);
    expect(
      await kyselyTransaction(o.ds, (tx) => runs.finishedRunsWithBookkeeping(tx, cutoff, 500)),
    ).not.toContain(old.runId);
  });

  it('finds idle threads to compact and locks one only while it is idle', async () => {
    const old = await endedRun(48);
    for (const version of [1, 2]) {
      const [task] = (await o.ds.query(
        `INSERT INTO run_tasks (id, run_id, thread_id, turn, step, seq, call_index, node, subject, version, deadline, status)
         VALUES (gen_random_uuid(), $1, $2, 1, $3, 0, 0, 'intake', 'sy.task.planner.intake', 0, now(), 'applied') RETURNING id`,
        [old.runId, old.threadId, version],
      )) as { id: string }[];
      await o.ds.query(
        `INSERT INTO state_deltas (thread_id, version, run_id, task_id, node, delta) VALUES ($1, $2, $3, $4, 'intake', '{}')`,
        [old.threadId, version, old.runId, task.id],
      );
    }
    const cutoff = new Date(Date.now() - 24 * 3600_000);

    const threads = await kyselyTransaction(o.ds, (tx) => runs.compactableThreads(tx, cutoff, 100));
    expect(threads).toContainEqual({ id: old.threadId, upto: 2 });
    expect(await kyselyTransaction(o.ds, (tx) => runs.lockIdleThread(tx, old.threadId))).toBe(true);
    await o.ds.query('UPDATE threads SET active_run_id = $2 WHERE id = $1', [old.threadId, old.runId]);
    expect(await kyselyTransaction(o.ds, (tx) => runs.lockIdleThread(tx, old.threadId))).toBe(false);
  });

  it('takes a free advisory lock, not one another transaction holds', async () => {
    const key = 0x5359_0001;
    await kyselyTransaction(o.ds, async (tx) => {
      expect(await runs.tryAdvisoryXactLock(tx, key)).toBe(true);
      expect(await kyselyTransaction(o.ds, (other) => runs.tryAdvisoryXactLock(other, key))).toBe(false);
    });
  });
});
