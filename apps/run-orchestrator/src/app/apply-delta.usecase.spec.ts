// ApplyDeltaUseCase against the real Postgres (a database of its own), with a recording publisher
// for the NATS side (use-cases.fixture).
import { randomUUID } from 'node:crypto';
import type { CommittedDelta, DeltaMessage, MeteredCall, TaskMessage } from '@switchyard/contracts';
import { ApplyDeltaUseCase } from './apply-delta.usecase';
import { answer, createTenant, useOrchestrator, queueRun } from './use-cases.fixture';

describe(ApplyDeltaUseCase.name, () => {
  const o = useOrchestrator('apply_delta');
  let tenantId: string;

  beforeAll(async () => {
    tenantId = await createTenant(o.ds);
  });

  /** A run started by StartRunUseCase, and the intake task it published. */
  async function started(
    maxSteps?: number,
  ): Promise<{ runId: string; threadId: string; intake: TaskMessage }> {
    const { runId, threadId } = await queueRun(o.ds, tenantId, { maxSteps });
    await o.startRun.execute(runId);
    const [intake] = publishedFor(runId);
    return { runId, threadId, intake };
  }

  const publishedFor = (runId: string) => o.publishedFor(runId).map((p) => p.message);
  const runOf = async (runId: string) =>
    (
      (await o.ds.query('SELECT status, steps, error, output FROM runs WHERE id = $1', [runId])) as {
        status: string;
        steps: number;
        error: { code: string; message: string } | null;
        output: unknown;
      }[]
    )[0];
  const logOf = async (threadId: string) =>
    (await o.ds.query(
      'SELECT version, task_id, node, delta FROM state_deltas WHERE thread_id = $1 ORDER BY version',
      [threadId],
    )) as { version: number; task_id: string; node: string; delta: CommittedDelta }[];
  const tasksOf = async (runId: string) =>
    (await o.ds.query(
      'SELECT id, node, step, status, version, delta FROM run_tasks WHERE run_id = $1 ORDER BY step, seq',
      [runId],
    )) as { id: string; node: string; step: number; status: string; version: number; delta: unknown }[];
  const threadOf = async (threadId: string) =>
    (
      (await o.ds.query('SELECT version, active_run_id FROM threads WHERE id = $1', [threadId])) as {
        version: number;
        active_run_id: string | null;
      }[]
    )[0];
  const slotHolders = async () =>
    (
      (await o.ds.query('SELECT run_id FROM tenant_run_slots WHERE tenant_id = $1 AND run_id IS NOT NULL', [
        tenantId,
      ])) as { run_id: string }[]
    ).map((r) => r.run_id);

  const scenario = (task: TaskMessage): DeltaMessage =>
    answer(task, {
      next: ['planner'],
      result: { scenario: 'math' },
      patch: [{ op: 'replace', path: '/scenario', value: 'math' }],
    });

  /** The state the log leads to, in its `scenario` field (the patch the specs send). */
  const scenarioInLog = async (threadId: string) =>
    (await logOf(threadId))
      .flatMap((r) => (r.delta.patch ?? []) as { path: string; value: unknown }[])
      .filter((p) => p.path === '/scenario')
      .map((p) => p.value);

  it('applies a delta: logs it, moves the thread, settles the task and dispatches the next step', async () => {
    const { runId, threadId, intake } = await started();

    await o.applyDelta.execute(scenario(intake), 'planner');

    const log = await logOf(threadId);
    expect(log.map((r) => [r.version, r.node, r.task_id])).toEqual([
      [1, 'start', runId],
      [2, 'intake', intake.task_id],
    ]);
    expect(log[1].delta.action).toMatchObject({ id: 2, node: 'intake', next: ['planner'], attempt: 1 });
    expect(await threadOf(threadId)).toEqual({ version: 2, active_run_id: runId });
    expect(await tasksOf(runId)).toEqual([
      { id: intake.task_id, node: 'intake', step: 1, status: 'applied', version: 1, delta: null },
      { id: expect.any(String), node: 'planner', step: 2, status: 'pending', version: 2, delta: null },
    ]);
    expect(await runOf(runId)).toMatchObject({ status: 'running', steps: 2, error: null });
    const [, planner] = publishedFor(runId);
    expect(planner).toMatchObject({ node: 'planner', step: 2, version: 2, attempt: 1 });
    // The task carries the delta its service has not seen, so it need not read it back.
    expect(planner.deltas?.map((d) => d.action.id)).toContain(2);
    expect(await scenarioInLog(threadId)).toEqual(['math']);
  });

  it("weighs the cached state's growth by the delta it logged, not by the whole state", async () => {
    const { threadId, intake } = await started();
    const before = o.cache.bytes;

    await o.applyDelta.execute(scenario(intake), 'planner');

    const [, logged] = await logOf(threadId);
    expect(o.cache.bytes - before).toBe(JSON.stringify(logged.delta).length);
    expect(o.cache.stats.misses).toBe(0);
  });

  it('applies the same delta once when it arrives twice', async () => {
    const { runId, threadId, intake } = await started();
    const msg = scenario(intake);

    await o.applyDelta.execute(msg, 'planner');
    await o.applyDelta.execute(msg, 'planner');

    expect((await logOf(threadId)).map((r) => r.version)).toEqual([1, 2]);
    expect((await threadOf(threadId)).version).toBe(2);
    expect((await tasksOf(runId)).map((t) => [t.node, t.status])).toEqual([
      ['intake', 'applied'],
      ['planner', 'pending'],
    ]);
    expect(await runOf(runId)).toMatchObject({ status: 'running', steps: 2 });
    expect(publishedFor(runId).map((t) => t.node)).toEqual(['intake', 'planner']);
    // The step's action event is in the run's stream once (a redelivery repairs only what is missing).
    const actions = (await o.events(runId)).filter((e) => e.event_type === 'action');
    expect(actions.map((e) => (e.payload as { id: number }).id)).toEqual([1, 2]);
  });

  it('applies the same delta once when two deliveries race', async () => {
    const { runId, threadId, intake } = await started();
    const msg = scenario(intake);

    await Promise.all([o.applyDelta.execute(msg, 'planner'), o.applyDelta.execute(msg, 'planner')]);

    expect((await logOf(threadId)).map((r) => r.version)).toEqual([1, 2]);
    expect((await tasksOf(runId)).map((t) => t.node)).toEqual(['intake', 'planner']);
    expect(publishedFor(runId).map((t) => t.node)).toEqual(['intake', 'planner']);
  });

  it('ends the run as succeeded when a step names no successor', async () => {
    const { runId, threadId, intake } = await started();

    await o.applyDelta.execute(answer(intake, { next: [], result: { answer: '42' } }), 'planner');

    expect(await runOf(runId)).toMatchObject({ status: 'succeeded', steps: 2, error: null });
    expect(await threadOf(threadId)).toEqual({ version: 2, active_run_id: null });
    expect(await slotHolders()).not.toContain(runId);
    expect(publishedFor(runId).map((t) => t.node)).toEqual(['intake']);
    const types = (await o.events(runId)).map((e) => e.event_type);
    expect(types.slice(-2)).toEqual(['status', 'done']);
  });

  describe('fails the run', () => {
    async function expectFailed(runId: string, threadId: string, code: string, message: RegExp) {
      const run = await runOf(runId);
      expect(run.status).toBe('failed');
      expect(run.error).toEqual({ code, message: expect.stringMatching(message) });
      // Nothing of the bad delta reached the log; the thread and the slot are free.
      expect((await logOf(threadId)).map((r) => r.node)).toEqual(['start']);
      expect(await threadOf(threadId)).toEqual({ version: 1, active_run_id: null });
      expect(await slotHolders()).not.toContain(runId);
      expect(publishedFor(runId).map((t) => t.node)).toEqual(['intake']);
      const events = await o.events(runId);
      expect(events.filter((e) => e.event_type === 'error').map((e) => e.payload)).toEqual([
        { code, message: run.error!.message },
      ]);
      expect(events.at(-1)).toMatchObject({ event_type: 'done', payload: { status: 'failed' } });
    }

    it('as delta_rejected when the patch writes a field the node may not', async () => {
      const { runId, threadId, intake } = await started();

      await o.applyDelta.execute(
        answer(intake, { next: ['planner'], patch: [{ op: 'replace', path: '/memory', value: [] }] }),
        'planner',
      );

      await expectFailed(runId, threadId, 'delta_rejected', /node "intake" may not patch "\/memory"/);
    });

    it('as delta_rejected when the patch does not apply to the state', async () => {
      const { runId, threadId, intake } = await started();

      await o.applyDelta.execute(
        answer(intake, { next: ['planner'], patch: [{ op: 'remove', path: '/task_goals/99' }] }),
        'planner',
      );

      await expectFailed(runId, threadId, 'delta_rejected', /^patch could not be applied/);
    });

    it('as invalid_delta when the delta claims another node than its task', async () => {
      const { runId, threadId, intake } = await started();
      const msg = answer(intake, { next: [] });
      msg.delta.action.node = 'planner';

      await o.applyDelta.execute(msg, 'planner');

      await expectFailed(runId, threadId, 'invalid_delta', /of node "intake" claims node "planner"/);
    });

    it('as invalid_delta when the delta names a task the run never dispatched', async () => {
      const { runId, threadId, intake } = await started();

      await o.applyDelta.execute(answer({ ...intake, task_id: randomUUID() }, { next: [] }), 'planner');

      await expectFailed(runId, threadId, 'invalid_delta', /which this run never dispatched/);
    });

    it('as max_steps_exceeded when a step would go past the run’s limit', async () => {
      const { runId, threadId, intake } = await started(3);
      await o.applyDelta.execute(scenario(intake), 'planner');
      const planner = publishedFor(runId)[1];

      await o.applyDelta.execute(answer(planner, { next: ['planner'] }), 'planner');

      const run = await runOf(runId);
      expect(run).toMatchObject({
        status: 'failed',
        steps: 3,
        error: { code: 'max_steps_exceeded', message: 'the run reached its limit of 3 steps' },
      });
      // The last step is logged; no task follows it.
      expect((await logOf(threadId)).map((r) => r.node)).toEqual(['start', 'intake', 'planner']);
      expect((await tasksOf(runId)).map((t) => [t.node, t.status])).toEqual([
        ['intake', 'applied'],
        ['planner', 'applied'],
      ]);
      expect(publishedFor(runId).map((t) => t.node)).toEqual(['intake', 'planner']);
    });
  });

  describe('the model calls a delta carries (usage_calls)', () => {
    const callOf = (task: TaskMessage, tokens: number): MeteredCall => ({
      call_id: randomUUID(),
      tenant_id: tenantId,
      business_id: null,
      run_id: task.run_id,
      task_id: task.task_id,
      node: task.node,
      attempt: 1,
      model_id: randomUUID(), // a model deleted since the call: billed without it
      key_id: null,
      prompt_tokens: tokens - 1,
      completion_tokens: 1,
      total_tokens: tokens,
      cost: 0.5,
    });
    const billed = async (runId: string) =>
      (
        (await o.ds.query(
          `SELECT count(*)::int AS rows, coalesce(sum(total_tokens), 0)::int AS tokens,
                  count(DISTINCT call_id)::int AS calls FROM model_usage WHERE run_id = $1`,
          [runId],
        )) as { rows: number; tokens: number; calls: number }[]
      )[0];
    const tokensUsed = async () =>
      Number(
        (
          (await o.ds.query('SELECT tokens_used FROM tenants WHERE id = $1', [tenantId])) as {
            tokens_used: string;
          }[]
        )[0].tokens_used,
      );

    it('are written with the step, once however often (and however concurrently) the delta comes', async () => {
      const { runId, intake } = await started();
      const used = await tokensUsed();
      const msg = { ...scenario(intake), usage_calls: [callOf(intake, 30), callOf(intake, 12)] };

      await o.applyDelta.execute(msg, 'planner');
      expect(await billed(runId)).toEqual({ rows: 2, tokens: 42, calls: 2 });
      await Promise.all([o.applyDelta.execute(msg, 'planner'), o.applyDelta.execute(msg, 'planner')]);

      expect(await billed(runId)).toEqual({ rows: 2, tokens: 42, calls: 2 });
      expect((await tokensUsed()) - used).toBe(42);
    });

    it('are billed for a late delta, whose run has ended, and for one whose run is gone', async () => {
      const { runId, intake } = await started();
      await o.applyDelta.execute(answer(intake, { next: [] }), 'planner');
      const used = await tokensUsed();

      await o.applyDelta.execute({ ...scenario(intake), usage_calls: [callOf(intake, 8)] }, 'planner');
      const gone = { ...intake, run_id: randomUUID() };
      await o.applyDelta.execute({ ...scenario(gone), usage_calls: [callOf(gone, 5)] }, 'planner');

      expect(await billed(runId)).toEqual({ rows: 1, tokens: 8, calls: 1 });
      expect(await billed(gone.run_id)).toEqual({ rows: 1, tokens: 5, calls: 1 });
      expect((await tokensUsed()) - used).toBe(13);
      expect(await runOf(runId)).toMatchObject({ status: 'succeeded', steps: 2 });
    });
  });

  it('discards a late delta for a run that has ended', async () => {
    const { runId, threadId, intake } = await started();
    await o.applyDelta.execute(answer(intake, { next: [] }), 'planner');

    await o.applyDelta.execute(scenario(intake), 'planner');

    expect(await runOf(runId)).toMatchObject({ status: 'succeeded', steps: 2 });
    expect((await logOf(threadId)).map((r) => r.version)).toEqual([1, 2]);
    expect(await scenarioInLog(threadId)).toEqual([]);
  });
});
