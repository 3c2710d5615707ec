import type { EntityManager } from 'typeorm';
import type { RuntimeState } from '@switchyard/contracts';
import type { StepSql } from './locked-read';
import type { PgStateSource } from './pg-state.source';

/**
 * Writes the state as the thread's latest snapshot and drops the thread's snapshots beyond the
 * newest `keep` (a version older than those still loads: from the log's base snapshot and the
 * deltas after it).
 */
export async function writeSnapshot(m: StepSql, state: RuntimeState, keep = 3): Promise<void> {
  // Only while the thread exists: a snapshot written after its step (SnapshotWriter) must not
  // outlive a deletion of the thread. A deletion holds the thread's row (deleteThreads), so this
  // waits for it and then writes nothing; a deletion that comes after waits for this and
  // deletes the snapshot with the rest.
  await m.query(
    `INSERT INTO state_snapshots (thread_id, version, state)
       SELECT $1::uuid, $2::int, $3::json WHERE EXISTS (SELECT 1 FROM threads WHERE id = $1::uuid FOR KEY SHARE)
     ON CONFLICT DO NOTHING`,
    [state.thread_id, state.version, JSON.stringify(state)],
  );
  await m.query('UPDATE threads SET snapshot_version = GREATEST(snapshot_version, $2) WHERE id = $1', [
    state.thread_id,
    state.version,
  ]);
  // The snapshot the log starts from (after compaction, see compactHistory) is the base of every
  // version still readable: it stays.
  await m.query(
    `DELETE FROM state_snapshots WHERE thread_id = $1
       AND version < (SELECT version FROM state_snapshots WHERE thread_id = $1 ORDER BY version DESC OFFSET $2 LIMIT 1)
       AND version <> (SELECT COALESCE(min(version), 1) - 1 FROM state_deltas WHERE thread_id = $1)`,
    [state.thread_id, keep - 1],
  );
}

/**
 * Folds a thread's history up to version `upto` into a snapshot at `upto` and deletes the deltas
 * and snapshots before it: the state at `upto` and after reads as before, the versions before it
 * (and the actions of the runs that wrote only those) can no longer be read or forked from. In
 * the caller's transaction, which holds the thread's row with no run active. Answers the number
 * of deltas deleted.
 */
export async function compactHistory(
  m: EntityManager,
  states: PgStateSource,
  threadId: string,
  upto: number,
  keep: number,
): Promise<number> {
  const state = await states.load(threadId, upto, m);
  await writeSnapshot(m, state, keep);
  const [{ n }] = (await m.query(
    `WITH gone AS (DELETE FROM state_deltas WHERE thread_id = $1 AND version <= $2 RETURNING 1)
     SELECT count(*)::int AS n FROM gone`,
    [threadId, upto],
  )) as { n: number }[];
  await m.query('DELETE FROM state_snapshots WHERE thread_id = $1 AND version < $2', [threadId, upto]);
  return n;
}
