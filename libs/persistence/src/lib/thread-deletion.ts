import type { EntityManager } from 'typeorm';

/**
 * Deletes these threads and what their runs wrote, inside the caller's transaction (which has
 * already checked that no run of them is active, and holds their rows): tool receipts, the state
 * log and snapshots, then the threads — their runs go with them (ON DELETE CASCADE), and with the
 * runs their tasks, tool outputs, made files and memories. Metered usage stays (billing), naming
 * runs that no longer exist. One place for the order, shared by a thread's deletion through the
 * API and the sweep of ended stateless runs' threads.
 */
export async function deleteThreads(m: EntityManager, threadIds: string[]): Promise<void> {
  if (threadIds.length === 0) {
    return;
  }
  await m.query(
    'DELETE FROM tool_receipts WHERE run_id IN (SELECT id FROM runs WHERE thread_id = ANY($1::uuid[]))',
    [threadIds],
  );
  await m.query('DELETE FROM state_deltas WHERE thread_id = ANY($1::uuid[])', [threadIds]);
  await m.query('DELETE FROM state_snapshots WHERE thread_id = ANY($1::uuid[])', [threadIds]);
  await m.query('DELETE FROM threads WHERE id = ANY($1::uuid[])', [threadIds]);
}
