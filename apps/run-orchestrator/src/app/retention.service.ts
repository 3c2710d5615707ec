import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { PgStateSource, compactHistory } from '@switchyard/persistence';
import { OrchestratorConfig } from './orchestrator.config';
import { PeriodicJob } from '@switchyard/platform';

// One orchestrator replica sweeps at a time (a transaction-scoped advisory lock).
const RETENTION_LOCK = 0x5359_5245; // "SYRE"
// Rows per statement, threads per pass: a pass stays short, the next one continues.
const BATCH = 500;
const THREADS_PER_PASS = 100;

export interface RetentionReport {
  /** Finished runs whose task rows, full tool outputs and receipts were deleted. */
  runsPruned: number;
  /** Threads whose old deltas were compacted into a snapshot. */
  threadsCompacted: number;
  deltasDeleted: number;
}

/**
 * Keeps Postgres from growing without bound. Every SWITCHYARD_RETENTION_INTERVAL_MS, one
 * replica (advisory lock):
 * - deletes the bookkeeping of runs finished more than SWITCHYARD_RETENTION_HOURS ago: task
 *   rows, full tool outputs, tool receipts (the run row, its output and usage stay);
 * - when SWITCHYARD_HISTORY_RETENTION_HOURS is set, compacts the history of idle threads: the
 *   deltas of runs finished before that are folded into a snapshot at the last of their versions
 *   and deleted, with the snapshots before it (those runs' actions and the thread's versions
 *   before that point can no longer be read).
 * Run events expire from Redis by themselves (SWITCHYARD_EVENTS_TTL_HOURS after the run's end).
 */
@Injectable()
export class RetentionJob extends PeriodicJob {
  constructor(
    @Inject(DataSource) private readonly ds: DataSource,
    @Inject(PgStateSource) private readonly states: PgStateSource,
    @Inject(OrchestratorConfig) private readonly config: OrchestratorConfig,
  ) {
    super();
  }

  protected intervalMs(): number | null {
    return this.config.retentionMs || this.config.historyRetentionMs ? this.config.retentionIntervalMs : null;
  }

  protected async pass(): Promise<void> {
    const report = await this.sweep();
    if (report.runsPruned || report.threadsCompacted) {
      this.logger.log({ msg: 'retention pass', ...report });
    }
  }

  /** One pass (exported for the bench and tests); a pass another replica holds is skipped. */
  async sweep(now = new Date()): Promise<RetentionReport> {
    const report: RetentionReport = { runsPruned: 0, threadsCompacted: 0, deltasDeleted: 0 };
    return this.ds.transaction(async (m) => {
      const [{ locked }] = (await m.query('SELECT pg_try_advisory_xact_lock($1) AS locked', [
        RETENTION_LOCK,
      ])) as { locked: boolean }[];
      if (!locked) {
        return report;
      }
      if (this.config.retentionMs) {
        const cutoff = new Date(now.getTime() - this.config.retentionMs);
        const runs = (await m.query(
          `SELECT r.id FROM runs r
           WHERE r.finished_at < $1
             AND (EXISTS (SELECT 1 FROM run_tasks t WHERE t.run_id = r.id)
               OR EXISTS (SELECT 1 FROM tool_outputs o WHERE o.run_id = r.id)
               OR EXISTS (SELECT 1 FROM tool_receipts c WHERE c.run_id = r.id)
               OR EXISTS (SELECT 1 FROM files f WHERE f.run_id = r.id AND f.task_id IS NOT NULL))
           LIMIT ${BATCH}`,
          [cutoff],
        )) as { id: string }[];
        const ids = runs.map((r) => r.id);
        if (ids.length) {
          await m.query('DELETE FROM run_tasks WHERE run_id = ANY($1::uuid[])', [ids]);
          await m.query('DELETE FROM tool_outputs WHERE run_id = ANY($1::uuid[])', [ids]);
          await m.query('DELETE FROM tool_receipts WHERE run_id = ANY($1::uuid[])', [ids]);
          // Files the run's components made go with its tool outputs; uploads stay.
          await m.query('DELETE FROM files WHERE run_id = ANY($1::uuid[]) AND task_id IS NOT NULL', [ids]);
        }
        report.runsPruned = ids.length;
      }
      if (this.config.historyRetentionMs) {
        const cutoff = new Date(now.getTime() - this.config.historyRetentionMs);
        // Per idle thread, the last version written by a run that ended before the cutoff (a
        // thread's runs follow one another, so every version up to it belongs to such runs).
        const threads = (await m.query(
          `SELECT th.id, max(d.version)::int AS upto
           FROM runs r JOIN threads th ON th.id = r.thread_id AND th.active_run_id IS NULL
           JOIN state_deltas d ON d.run_id = r.id
           WHERE r.finished_at < $1
           GROUP BY th.id LIMIT ${THREADS_PER_PASS}`,
          [cutoff],
        )) as { id: string; upto: number }[];
        for (const t of threads) {
          const [idle] = (await m.query(
            'SELECT id FROM threads WHERE id = $1 AND active_run_id IS NULL FOR UPDATE SKIP LOCKED',
            [t.id],
          )) as { id: string }[];
          if (!idle) {
            continue;
          }
          report.deltasDeleted += await compactHistory(
            m,
            this.states,
            t.id,
            t.upto,
            this.config.snapshotKeep,
          );
          report.threadsCompacted++;
        }
      }
      return report;
    });
  }
}
