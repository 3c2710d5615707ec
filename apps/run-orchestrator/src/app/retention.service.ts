import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { PgStateSource, compactHistory, kyselyOfManager } from '@switchyard/persistence';
import { PeriodicJob } from '@switchyard/platform';
import { OrchestratorConfig } from './orchestrator.config';
import { RunsRepository } from './runs.repository';

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
  private readonly runs: RunsRepository;

  constructor(
    @Inject(DataSource) private readonly ds: DataSource,
    @Inject(PgStateSource) private readonly states: PgStateSource,
    @Inject(OrchestratorConfig) private readonly config: OrchestratorConfig,
  ) {
    super();
    this.runs = new RunsRepository(ds);
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
      const tx = await kyselyOfManager(m);
      if (!(await this.runs.tryAdvisoryXactLock(tx, RETENTION_LOCK))) {
        return report;
      }
      if (this.config.retentionMs) {
        const cutoff = new Date(now.getTime() - this.config.retentionMs);
        const ids = await this.runs.finishedRunsWithBookkeeping(tx, cutoff, BATCH);
        if (ids.length) {
          await this.runs.deleteRunBookkeeping(tx, ids);
        }
        report.runsPruned = ids.length;
      }
      if (this.config.historyRetentionMs) {
        const cutoff = new Date(now.getTime() - this.config.historyRetentionMs);
        const threads = await this.runs.compactableThreads(tx, cutoff, THREADS_PER_PASS);
        for (const t of threads) {
          if (!(await this.runs.lockIdleThread(tx, t.id))) {
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
