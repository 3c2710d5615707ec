// State snapshots written after the steps that made them due (SnapshotWriter), against the real
// Postgres with the use-cases fixture (a snapshot every 10 versions).
import { randomUUID } from 'node:crypto';
import { PgStateSource, deleteThreads, pooledSql, writeSnapshot } from '@switchyard/persistence';
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

  it('writes the snapshot a start makes due, though no step follows it', async () => {
    const tenantId = await createTenant(o.ds);
    const { runId, threadId } = await queueRun(o.ds, tenantId);
    await o.startRun.execute(runId);
    // The start (version 1) and eight steps, the last naming no successor: the run ends at 9.
    for (let i = 0; i < 8; i++) {
      const task = o.publishedFor(runId).at(-1)!.message;
      await o.applyDelta.execute(answer(task, { next: i < 7 ? ['planner'] : [] }), 'planner');
    }
    const next = randomUUID();
    await o.ds.query(
      `INSERT INTO runs (id, tenant_id, thread_id, agent_id, status, input, max_steps)
       VALUES ($1, $2, $3, 'default', 'queued', $4, 50)`,
      [next, tenantId, threadId, JSON.stringify({ prompt: 'And 7 * 8?' })],
    );
    // The next turn's start is version 10: due, ten versions past none.
    await o.startRun.execute(next);
    let versions: number[] = [];
    for (let i = 0; i < 40 && versions.length === 0; i++) {
      versions = await snapshotsOf(threadId);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(versions).toEqual([10]);
  });

  it("never keeps a late snapshot of a deleted thread, even one racing the thread's deletion", async () => {
    const tenantId = await createTenant(o.ds);
    const { runId, threadId } = await queueRun(o.ds, tenantId);
    await o.startRun.execute(runId);
    const state = await new PgStateSource(o.ds).load(threadId, 1);
    let written = false;
    await o.ds.transaction(async (m) => {
      // As a deletion does: the thread's row held, then everything of it deleted.
      await m.query('SELECT id FROM threads WHERE id = $1 FOR UPDATE', [threadId]);
      await deleteThreads(m, [threadId]);
      const late = writeSnapshot(pooledSql(o.ds), state).then(() => {
        written = true;
      });
      await new Promise((r) => setTimeout(r, 200));
      expect(written).toBe(false); // waits for the deletion
      void late;
    });
    for (let i = 0; i < 40 && !written; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(written).toBe(true);
    expect(await snapshotsOf(threadId)).toEqual([]);
    // And after the deletion, plainly.
    await writeSnapshot(pooledSql(o.ds), state);
    expect(await snapshotsOf(threadId)).toEqual([]);
  });
});
