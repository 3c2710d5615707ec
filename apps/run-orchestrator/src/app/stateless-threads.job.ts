import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { PeriodicJob } from './periodic-job';

// How often the orchestrator looks for stateless runs' threads to delete, and how many at a time.
const SWEEP_INTERVAL_MS = 2000;
const THREADS_PER_PASS = 200;

/**
 * Deletes the threads made for LangGraph stateless runs (`on_completion: "delete"`, the default)
 * once every run of theirs has ended: their versions, snapshots, receipts, then the thread (its
 * runs, tasks and files go with it by cascade). A thread that waits for an answer is kept until it
 * is answered and ends. Replicas share the work (`SKIP LOCKED`); run events expire from Redis by
 * themselves.
 */
@Injectable()
export class StatelessThreadsJob extends PeriodicJob {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {
    super();
  }

  protected intervalMs(): number {
    return SWEEP_INTERVAL_MS;
  }

  protected async pass(): Promise<void> {
    await this.sweep();
  }

  /** One pass: the number of threads deleted. */
  async sweep(): Promise<number> {
    return this.ds.transaction(async (m) => {
      const rows = (await m.query(
        `SELECT t.id FROM threads t
         WHERE t.delete_when_done AND t.active_run_id IS NULL
           AND EXISTS (SELECT 1 FROM runs r WHERE r.thread_id = t.id)
           AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.thread_id = t.id AND r.status IN ('queued', 'running', 'waiting'))
         ORDER BY t.created_at LIMIT ${THREADS_PER_PASS}
         FOR UPDATE OF t SKIP LOCKED`,
      )) as { id: string }[];
      const ids = rows.map((r) => r.id);
      if (ids.length === 0) {
        return 0;
      }
      await m.query(
        'DELETE FROM tool_receipts WHERE run_id IN (SELECT id FROM runs WHERE thread_id = ANY($1::uuid[]))',
        [ids],
      );
      await m.query('DELETE FROM state_deltas WHERE thread_id = ANY($1::uuid[])', [ids]);
      await m.query('DELETE FROM state_snapshots WHERE thread_id = ANY($1::uuid[])', [ids]);
      await m.query('DELETE FROM threads WHERE id = ANY($1::uuid[])', [ids]);
      this.logger.log({ msg: 'stateless threads deleted', count: ids.length });
      return ids.length;
    });
  }
}
