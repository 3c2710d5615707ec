// TaskReaper against the real Postgres (a database of its own), with a recording publisher for
// the NATS side (use-cases.fixture). A pass reads every run of the database: this spec's only.
import type { TaskMessage } from '@switchyard/contracts';
import { TaskReaper } from './task-reaper.service';
import { answer, createTenant, useOrchestrator, queueRun } from './use-cases.fixture';

const MAX_ATTEMPTS = 2;

describe(TaskReaper.name, () => {
  const o = useOrchestrator('task_reaper', {
    SWITCHYARD_TASK_MAX_ATTEMPTS: String(MAX_ATTEMPTS),
  });

  const taskOf = async (taskId: string) =>
    (
      (await o.ds.query('SELECT attempt, status, deadline, published_at FROM run_tasks WHERE id = $1', [
        taskId,
      ])) as { attempt: number; status: string; deadline: Date; published_at: Date | null }[]
    )[0];
  const runOf = async (runId: string) =>
    (
      (await o.ds.query('SELECT status, error FROM runs WHERE id = $1', [runId])) as {
        status: string;
        error: { code: string; message: string } | null;
      }[]
    )[0];
  /** The task's deadline passed (its node never answered). */
  const overdue = (taskId: string) =>
    o.ds.query(`UPDATE run_tasks SET deadline = now() - interval '1 second' WHERE id = $1`, [taskId]);

  async function started(tenantId?: string): Promise<{ runId: string; intake: TaskMessage }> {
    const { runId } = await queueRun(o.ds, tenantId ?? (await createTenant(o.ds)));
    await o.startRun.execute(runId);
    return { runId, intake: o.publishedFor(runId)[0].message };
  }

  it('dispatches an overdue task again with the next attempt and a new deadline', async () => {
    const { runId, intake } = await started();
    await overdue(intake.task_id);
    const before = Date.now();

    await o.reaper.tick();

    const task = await taskOf(intake.task_id);
    expect(task).toMatchObject({ attempt: 2, status: 'pending' });
    // SWITCHYARD_TASK_TIMEOUT_MS (default 120 s) from now.
    expect(task.deadline.getTime()).toBeGreaterThanOrEqual(before + 119_000);
    expect(await runOf(runId)).toEqual({ status: 'running', error: null });
    // Published again under the new attempt's id (JetStream would drop a resend of the same one).
    expect(o.publishedFor(runId).map((p) => [p.msgId, p.message.attempt])).toEqual([
      [`${intake.task_id}:1`, 1],
      [`${intake.task_id}:2`, 2],
    ]);
    const errors = (await o.events(runId)).filter((e) => e.event_type === 'error').map((e) => e.payload);
    expect(errors).toEqual([
      {
        code: 'task_timeout',
        node: 'intake',
        message: `node "intake" did not answer within 120000 ms; attempt 2 of ${MAX_ATTEMPTS}`,
      },
    ]);
  });

  it('fails the run naming the node after the last attempt', async () => {
    const { runId, intake } = await started();
    await overdue(intake.task_id);
    await o.reaper.tick();
    await overdue(intake.task_id);

    await o.reaper.tick();

    expect(await runOf(runId)).toEqual({
      status: 'failed',
      error: {
        code: 'task_timeout',
        message: `node "intake" did not answer task ${intake.task_id} in ${MAX_ATTEMPTS} attempts of 120000 ms each`,
      },
    });
    expect((await taskOf(intake.task_id)).attempt).toBe(MAX_ATTEMPTS);
    expect(o.publishedFor(runId)).toHaveLength(MAX_ATTEMPTS);
    expect(
      await o.ds.query('SELECT count(*)::int AS n FROM tenant_run_slots WHERE run_id = $1', [runId]),
    ).toEqual([{ n: 0 }]);
  });

  it('leaves a task whose deadline has not passed, and one whose delta arrived', async () => {
    const waiting = await started();
    const answered = await started();
    await o.applyDelta.execute(answer(answered.intake, { next: [] }), 'planner');
    await overdue(answered.intake.task_id);

    await o.reaper.tick();

    expect(await taskOf(waiting.intake.task_id)).toMatchObject({ attempt: 1, status: 'pending' });
    expect(await taskOf(answered.intake.task_id)).toMatchObject({ attempt: 1, status: 'applied' });
    expect(o.publishedFor(waiting.runId)).toHaveLength(1);
    expect(o.publishedFor(answered.runId)).toHaveLength(1);
    expect((await runOf(answered.runId)).status).toBe('succeeded');
  });

  it('applies the first attempt’s late delta after a re-dispatch, recording both dispatches', async () => {
    const { runId, intake } = await started();
    await overdue(intake.task_id);
    await o.reaper.tick();

    await o.applyDelta.execute(answer(intake, { next: [] }), 'planner');

    expect(await runOf(runId)).toEqual({ status: 'succeeded', error: null });
    const [logged] = (await o.ds.query(`SELECT delta FROM state_deltas WHERE task_id = $1`, [
      intake.task_id,
    ])) as { delta: { action: { attempt: number } } }[];
    expect(logged.delta.action.attempt).toBe(2);
  });

  it('starts a queued run whose start was lost', async () => {
    const tenantId = await createTenant(o.ds);
    const { runId } = await queueRun(o.ds, tenantId);
    // Queued a while ago, and its `sy.run.start` never arrived.
    await o.ds.query(`UPDATE runs SET created_at = now() - interval '1 minute' WHERE id = $1`, [runId]);

    await o.reaper.tick();

    expect((await runOf(runId)).status).toBe('running');
    expect(o.publishedFor(runId).map((p) => p.message.node)).toEqual(['intake']);
  });

  it('frees a running slot a run that ended still holds, and starts the run its cap held', async () => {
    const tenantId = await createTenant(o.ds, 1);
    const first = await started(tenantId);
    const { runId: held } = await queueRun(o.ds, tenantId);
    await o.startRun.execute(held);
    expect((await runOf(held)).status).toBe('queued');
    // The first run ends on a path that missed its slot (an older release's orchestrator).
    await o.ds.query(`UPDATE runs SET status = 'succeeded', finished_at = now() WHERE id = $1`, [
      first.runId,
    ]);
    await o.ds.query('UPDATE threads SET active_run_id = NULL WHERE active_run_id = $1', [first.runId]);

    await o.reaper.tick();

    expect((await runOf(held)).status).toBe('running');
    expect(
      await o.ds.query('SELECT run_id FROM tenant_run_slots WHERE tenant_id = $1 AND run_id IS NOT NULL', [
        tenantId,
      ]),
    ).toEqual([{ run_id: held }]);
  });
});
