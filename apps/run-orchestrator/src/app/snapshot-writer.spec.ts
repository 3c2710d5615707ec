// State snapshots written after the steps that made them due (SnapshotWriter), against the real
// Postgres with the use-cases fixture (a snapshot every 10 versions).
import { PgStateSource } from '@switchyard/persistence';
import { answer, createTenant, queueRun, useOrchestrator } from './use-cases.fixture';

describe('state snapshots after the step', () => {
  const o = useOrchestrator('snapshot_writer', { SWITCHYARD_SNAPSHOT_EVERY: '10' });

  const snapshotsOf = async (threadId: string) =>
    (
      (await o.ds.query('SELECT version FROM state_snapshots WHERE thread_id = $1 ORDER BY version', [
        threadId,
      ])) as { version: number }[]
    ).map((s) => s.version);

  it('writes one snapshot each time one is due, loadable as the log replays, never a step late twice', async () => {
    const tenantId = await createTenant(o.ds);
    const { runId, threadId } = await queueRun(o.ds, tenantId, { maxSteps: 100 });
    await o.startRun.execute(runId);
    // intake, then the planner naming itself: 25 steps, one at a time (the thread's row tells the
    // next step of a snapshot only once it is written: the writer's own memory stops a second one).
    for (let i = 0; i < 25; i++) {
      const task = o.publishedFor(runId).at(-1)!.message;
      await o.applyDelta.execute(answer(task, { next: ['planner'] }), 'planner');
    }
    let versions: number[] = [];
    for (let i = 0; i < 50 && versions.length < 2; i++) {
      versions = await snapshotsOf(threadId);
      await new Promise((r) => setTimeout(r, 50));
    }
    // The start is version 1, so version 26 is the last; due at 10 and 20 versions after none.
    expect(versions).toEqual([10, 20]);
    const [thread] = (await o.ds.query('SELECT version, snapshot_version FROM threads WHERE id = $1', [
      threadId,
    ])) as { version: number; snapshot_version: number }[];
    expect(thread).toEqual({ version: 26, snapshot_version: 20 });
    // A load from the snapshot is the state the whole log replays to.
    const source = new PgStateSource(o.ds);
    const fromSnapshot = await source.load(threadId, 26);
    await o.ds.query('DELETE FROM state_snapshots WHERE thread_id = $1', [threadId]);
    expect(await source.load(threadId, 26)).toEqual(fromSnapshot);
  });
});
