// StartRunUseCase and the tenant's running cap against the real Postgres (a database of its own),
// with a recording publisher for the NATS side (use-cases.fixture).
import { randomUUID } from 'node:crypto';
import type { CommittedDelta } from '@switchyard/contracts';
import { NonRetryableMessageError } from '@switchyard/jetstream';
import { StartRunUseCase } from './start-run.usecase';
import { answer, createTenant, useOrchestrator, queueRun } from './use-cases.fixture';

// Tenants with no cap of their own run at most this many runs at once.
const DEFAULT_CAP = 3;

describe(StartRunUseCase.name, () => {
  const o = useOrchestrator('start_run', {
    SWITCHYARD_TENANT_MAX_RUNNING: String(DEFAULT_CAP),
  });

  const runOf = async (runId: string) =>
    (
      (await o.ds.query('SELECT status, turn, steps, started_at, error FROM runs WHERE id = $1', [
        runId,
      ])) as {
        status: string;
        turn: number | null;
        steps: number;
        started_at: Date | null;
        error: { code: string } | null;
      }[]
    )[0];
  const statusesOf = async (runIds: string[]) =>
    (
      (await o.ds.query('SELECT id, status FROM runs WHERE id = ANY($1::uuid[])', [runIds])) as {
        id: string;
        status: string;
      }[]
    ).reduce<Record<string, string>>((acc, r) => ({ ...acc, [r.id]: r.status }), {});
  const slotsOf = async (tenantId: string) =>
    (
      (await o.ds.query(
        'SELECT run_id FROM tenant_run_slots WHERE tenant_id = $1 AND run_id IS NOT NULL ORDER BY run_id',
        [tenantId],
      )) as { run_id: string }[]
    ).map((r) => r.run_id);

  describe('a start', () => {
    it('writes the run running, the start action, the first task, and publishes that task', async () => {
      const tenantId = await createTenant(o.ds);
      const { runId, threadId } = await queueRun(o.ds, tenantId, { prompt: 'What is 6 * 7?' });

      await o.startRun.execute(runId);

      const run = await runOf(runId);
      expect(run).toMatchObject({ status: 'running', turn: 0, steps: 1, error: null });
      expect(run.started_at).toBeInstanceOf(Date);
      expect(
        await o.ds.query('SELECT version, turns, active_run_id FROM threads WHERE id = $1', [threadId]),
      ).toEqual([{ version: 1, turns: 1, active_run_id: runId }]);
      // The log holds the start action (task id = run id): the turn's prompt, the agent's entry node.
      const log = (await o.ds.query(
        'SELECT version, task_id, run_id, node, delta FROM state_deltas WHERE thread_id = $1 ORDER BY version',
        [threadId],
      )) as { version: number; task_id: string; run_id: string; node: string; delta: CommittedDelta }[];
      expect(log).toHaveLength(1);
      expect(log[0]).toMatchObject({ version: 1, task_id: runId, run_id: runId, node: 'start' });
      expect(log[0].delta.action).toMatchObject({ id: 1, node: 'start', next: ['intake'] });
      expect(log[0].delta.action.result).toMatchObject({ prompt: 'What is 6 * 7?' });
      // The outbox row of the first task …
      const tasks = (await o.ds.query(
        'SELECT id, node, subject, step, seq, version, attempt, status, turn FROM run_tasks WHERE run_id = $1',
        [runId],
      )) as { id: string }[];
      expect(tasks).toEqual([
        {
          id: expect.any(String),
          node: 'intake',
          subject: 'sy.task.planner.intake',
          step: 1,
          seq: 0,
          version: 1,
          attempt: 1,
          status: 'pending',
          turn: 0,
        },
      ]);
      // … and its message, published once under the task's id and attempt.
      expect(o.publishedFor(runId)).toEqual([
        {
          subject: 'sy.task.planner.intake',
          msgId: `${tasks[0].id}:1`,
          message: expect.objectContaining({
            task_id: tasks[0].id,
            run_id: runId,
            thread_id: threadId,
            node: 'intake',
            version: 1,
            step: 1,
            attempt: 1,
            tenant_id: tenantId,
            priority: 'interactive',
          }),
        },
      ]);
      // The run holds one of its tenant's running slots.
      expect(await slotsOf(tenantId)).toEqual([runId]);
      const events = (await o.events(runId)).map((e) => [e.event_type, e.payload]);
      expect(events).toEqual([
        ['status', { status: 'running' }],
        ['action', expect.objectContaining({ id: 1, node: 'start' })],
      ]);
    });

    it('opens the turn once: a second start of the same run writes and publishes nothing', async () => {
      const tenantId = await createTenant(o.ds);
      const { runId, threadId } = await queueRun(o.ds, tenantId);
      await o.startRun.execute(runId);
      const published = o.publishedFor(runId).length;

      await o.startRun.execute(runId);
      await Promise.all([o.startRun.execute(runId), o.startRun.execute(runId)]);

      expect(published).toBe(1);
      expect(o.publishedFor(runId)).toHaveLength(1);
      expect(
        await o.ds.query('SELECT count(*)::int AS n FROM state_deltas WHERE thread_id = $1', [threadId]),
      ).toEqual([{ n: 1 }]);
      expect(await o.ds.query('SELECT count(*)::int AS n FROM run_tasks WHERE run_id = $1', [runId])).toEqual(
        [{ n: 1 }],
      );
      expect(await slotsOf(tenantId)).toEqual([runId]);
    });

    it('refuses, without retry, a start that names no run', async () => {
      const start = o.startRun.execute(randomUUID());
      await expect(start).rejects.toBeInstanceOf(NonRetryableMessageError);
      await expect(start).rejects.toThrow(/does not exist/);
    });

    it("starts the run on the message's thread without reading the run first", async () => {
      const tenantId = await createTenant(o.ds);
      const { runId, threadId } = await queueRun(o.ds, tenantId);

      await o.startRun.execute(runId, threadId);

      expect(await runOf(runId)).toMatchObject({ status: 'running', steps: 1 });
      expect(o.publishedFor(runId)).toHaveLength(1);
    });

    it('refuses a start naming a thread and no run, and starts the run on its own thread', async () => {
      const start = o.startRun.execute(randomUUID(), randomUUID());
      await expect(start).rejects.toBeInstanceOf(NonRetryableMessageError);
      await expect(start).rejects.toThrow(/does not exist/);

      // A message whose thread is not the run's still starts the run, on the run's thread.
      const tenantId = await createTenant(o.ds);
      const { runId } = await queueRun(o.ds, tenantId);
      await o.startRun.execute(runId, randomUUID());
      expect(await runOf(runId)).toMatchObject({ status: 'running', steps: 1 });
    });
  });

  describe('after a run ends', () => {
    it("starts the thread's next queued run, and nothing when none waits", async () => {
      const tenantId = await createTenant(o.ds);
      const { runId: first, threadId } = await queueRun(o.ds, tenantId);
      await o.startRun.execute(first, threadId);
      const second = randomUUID();
      await o.ds.query(
        `INSERT INTO runs (id, tenant_id, thread_id, agent_id, status, input, max_steps)
         VALUES ($1, $2, $3, 'default', 'queued', '{"prompt":"again"}', 50)`,
        [second, tenantId, threadId],
      );
      // Its start finds the thread busy: the run waits its turn.
      await o.startRun.execute(second, threadId);
      expect(await statusesOf([first, second])).toEqual({ [first]: 'running', [second]: 'queued' });

      const [task] = o.publishedFor(first);
      await o.applyDelta.execute(answer(task.message, { next: [], result: { answer: '42' } }), 'planner');
      expect(await statusesOf([first, second])).toEqual({ [first]: 'succeeded', [second]: 'running' });

      // The second ends with nothing behind it: the thread is left free, nothing else starts.
      const [next] = o.publishedFor(second);
      await o.applyDelta.execute(answer(next.message, { next: [], result: { answer: '43' } }), 'planner');
      expect(await statusesOf([second])).toEqual({ [second]: 'succeeded' });
      expect(await o.ds.query('SELECT active_run_id FROM threads WHERE id = $1', [threadId])).toEqual([
        { active_run_id: null },
      ]);
      expect(await slotsOf(tenantId)).toEqual([]);
    });
  });

  describe('a next turn on a thread', () => {
    /** A thread whose first run ended after one step, and a second run queued on it. */
    const afterOneTurn = async () => {
      const tenantId = await createTenant(o.ds);
      const { runId: first, threadId } = await queueRun(o.ds, tenantId);
      await o.startRun.execute(first, threadId);
      const [task] = o.publishedFor(first);
      await o.applyDelta.execute(answer(task.message, { next: [], result: { answer: '42' } }), 'planner');
      const second = randomUUID();
      await o.ds.query(
        `INSERT INTO runs (id, tenant_id, thread_id, agent_id, status, input, max_steps)
         VALUES ($1, $2, $3, 'default', 'queued', '{"prompt":"again"}', 50)`,
        [second, tenantId, threadId],
      );
      return { threadId, second };
    };

    it("opens on the state the thread's last step left in the cache, without reading it back", async () => {
      const { threadId, second } = await afterOneTurn();
      const before = { ...o.cache.stats };

      await o.startRun.execute(second, threadId);

      expect(o.cache.stats.hits).toBe(before.hits + 1);
      expect(o.cache.stats.misses).toBe(before.misses);
      const log = (await o.ds.query(
        'SELECT version, node, delta FROM state_deltas WHERE thread_id = $1 ORDER BY version',
        [threadId],
      )) as { version: number; node: string; delta: { patch: { path: string; value: unknown }[] } }[];
      expect(log.map((r) => [r.version, r.node])).toEqual([
        [1, 'start'],
        [2, 'intake'],
        [3, 'start'],
      ]);
      // The second start opened turn 1 on top of the first turn.
      expect(log[2].delta.patch).toContainEqual({ op: 'replace', path: '/turn', value: 1 });
    });

    it('reads the state in its own transaction when the cache does not hold it', async () => {
      const { threadId, second } = await afterOneTurn();
      o.cache.evict(threadId);
      const before = { ...o.cache.stats };

      await o.startRun.execute(second, threadId);

      expect(o.cache.stats).toEqual(before);
      const [start] = (await o.ds.query(
        `SELECT delta FROM state_deltas WHERE thread_id = $1 AND version = 3`,
        [threadId],
      )) as { delta: { action: { node: string }; patch: unknown[] } }[];
      expect(start.delta.action.node).toBe('start');
      expect(start.delta.patch).toContainEqual({ op: 'replace', path: '/turn', value: 1 });
    });
  });

  describe("the tenant's running cap", () => {
    /** `n` queued runs of the tenant, each on its own thread, oldest first. */
    const queued = async (tenantId: string, n: number) => {
      const runs: string[] = [];
      for (let i = 0; i < n; i++) {
        runs.push((await queueRun(o.ds, tenantId)).runId);
      }
      return runs;
    };

    it.each([
      ['its own cap', 2],
      ['the default cap', null],
    ])('admits exactly N running runs with %s and queues the N+1st', async (_, own) => {
      const cap = own ?? DEFAULT_CAP;
      const tenantId = await createTenant(o.ds, own ?? undefined);
      const runs = await queued(tenantId, cap + 1);

      for (const runId of runs) {
        await o.startRun.execute(runId);
      }

      const statuses = await statusesOf(runs);
      expect(runs.map((id) => statuses[id])).toEqual([...Array(cap).fill('running'), 'queued']);
      expect(await slotsOf(tenantId)).toEqual(runs.slice(0, cap).sort());
      // The held run dispatched nothing: no task row, nothing published.
      const held = runs[cap];
      expect(o.publishedFor(held)).toEqual([]);
      expect(await o.ds.query('SELECT count(*)::int AS n FROM run_tasks WHERE run_id = $1', [held])).toEqual([
        { n: 0 },
      ]);
    });

    it('admits exactly N of many starts at once', async () => {
      const cap = 2;
      const tenantId = await createTenant(o.ds, cap);
      const runs = await queued(tenantId, 5);

      await Promise.all(runs.map((runId) => o.startRun.execute(runId)));

      const statuses = Object.values(await statusesOf(runs));
      expect(statuses.filter((s) => s === 'running')).toHaveLength(cap);
      expect(statuses.filter((s) => s === 'queued')).toHaveLength(runs.length - cap);
      expect(await slotsOf(tenantId)).toHaveLength(cap);
      expect(runs.filter((id) => o.publishedFor(id).length > 0)).toHaveLength(cap);
    });

    it('holds a start whose only free slot another start has taken but not committed', async () => {
      const tenantId = await createTenant(o.ds, 1);
      // The tenant's slot rows exist once a run of it started; that run ended and freed its slot.
      const [earlier] = await queued(tenantId, 1);
      await o.startRun.execute(earlier);
      await o.applyDelta.execute(answer(o.publishedFor(earlier)[0].message, { next: [] }), 'planner');
      expect(await slotsOf(tenantId)).toEqual([]);
      const [run] = await queued(tenantId, 1);
      // Another start, not yet committed, holds slot 0: no run of the tenant reads as running.
      const other = o.ds.createQueryRunner();
      await other.connect();
      await other.startTransaction();
      try {
        await other.query('SELECT slot FROM tenant_run_slots WHERE tenant_id = $1 AND slot = 0 FOR UPDATE', [
          tenantId,
        ]);

        await o.startRun.execute(run);

        expect((await runOf(run)).status).toBe('queued');
        expect(o.publishedFor(run)).toEqual([]);
      } finally {
        await other.rollbackTransaction();
        await other.release();
      }
      // That start rolled back: the slot is free again and the run starts.
      await o.startRun.startTenant(tenantId);
      expect((await runOf(run)).status).toBe('running');
      expect(await slotsOf(tenantId)).toEqual([run]);
    });

    it("counts only the tenant's own runs", async () => {
      const full = await createTenant(o.ds, 1);
      const other = await createTenant(o.ds, 1);
      const [first, second] = await queued(full, 2);
      const [others] = await queued(other, 1);

      for (const runId of [first, second, others]) {
        await o.startRun.execute(runId);
      }

      expect(await statusesOf([first, second, others])).toEqual({
        [first]: 'running',
        [second]: 'queued',
        [others]: 'running',
      });
    });

    it('starts the next held run when a running one ends and frees its slot', async () => {
      const cap = 2;
      const tenantId = await createTenant(o.ds, cap);
      const runs = await queued(tenantId, cap + 2);
      for (const runId of runs) {
        await o.startRun.execute(runId);
      }
      const [ending, staying, next, last] = runs;

      // The first run's intake answers with no successor: the run succeeds and its slot is free.
      const [task] = o.publishedFor(ending);
      await o.applyDelta.execute(answer(task.message, { next: [], result: { answer: '42' } }), 'planner');

      expect(await statusesOf(runs)).toEqual({
        [ending]: 'succeeded',
        [staying]: 'running',
        [next]: 'running',
        [last]: 'queued',
      });
      expect(await slotsOf(tenantId)).toEqual([staying, next].sort());
      expect(o.publishedFor(next)).toEqual([
        expect.objectContaining({
          subject: 'sy.task.planner.intake',
          message: expect.objectContaining({ step: 1 }),
        }),
      ]);
      expect(o.publishedFor(last)).toEqual([]);
    });
  });
});
