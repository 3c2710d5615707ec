import { type BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { DataSource } from 'typeorm';
import type { RuntimeState } from '@switchyard/contracts';
import { pooledSql, writeSnapshot } from '@switchyard/persistence';
import { OrchestratorConfig } from './orchestrator.config';

/**
 * Writes a thread's state snapshot after the step that made it due has committed, off the step's
 * path. A snapshot is the whole state — hundreds of KiB for a long thread — and written inside
 * the step it made that step the slowest of its run, every SWITCHYARD_SNAPSHOT_EVERY versions (the
 * pure loop's p99: tools/bench/PROFILE.md, round 9); a step's own writes stay O(its delta).
 *
 * A snapshot only shortens loads (a version loads from the newest snapshot at or before it and
 * the deltas after it), so one that is late or never written (a crash, an error: logged) costs a
 * longer load, and a later step schedules another. The snapshots a state cannot load without —
 * a fork's branch point, a compaction's base — are still written in their own transactions.
 * Writes go one at a time; a thread's newer state replaces its older one still waiting. Each
 * statement commits alone, so the thread's row is locked only for the version's update.
 */
@Injectable()
export class SnapshotWriter implements BeforeApplicationShutdown {
  private readonly logger = new Logger(SnapshotWriter.name);
  /** Per thread, the newest version this process scheduled: the steps after it count from there. */
  private readonly scheduled = new LRUCache<string, number>({ max: 10_000 });
  private readonly waiting = new Map<string, RuntimeState>();
  private writing?: Promise<void>;

  constructor(
    @Inject(DataSource) private readonly ds: DataSource,
    @Inject(OrchestratorConfig) private readonly config: OrchestratorConfig,
  ) {}

  /**
   * Writes the snapshot of a committed state soon (call after the commit) when one is due:
   * SWITCHYARD_SNAPSHOT_EVERY versions past the newest one written (`snapshotVersion`, as the
   * thread's row said in the step) or scheduled here.
   */
  afterCommit(state: RuntimeState, snapshotVersion: number): void {
    const scheduled = this.scheduled.get(state.thread_id) ?? -1;
    if (state.version - Math.max(snapshotVersion, scheduled) >= this.config.snapshotEvery) {
      this.schedule(state);
    }
  }

  private schedule(state: RuntimeState): void {
    this.scheduled.set(state.thread_id, Math.max(this.scheduled.get(state.thread_id) ?? -1, state.version));
    this.waiting.set(state.thread_id, state);
    this.writing ??= this.drain().finally(() => {
      this.writing = undefined;
    });
  }

  /** The snapshots still waiting are written before the database goes away. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.writing;
  }

  private async drain(): Promise<void> {
    for (const [threadId, state] of this.waiting) {
      this.waiting.delete(threadId);
      try {
        await writeSnapshot(pooledSql(this.ds), state, this.config.snapshotKeep);
      } catch (err) {
        // A later due step schedules another; meanwhile loads replay a few more deltas.
        this.scheduled.delete(threadId);
        this.logger.warn({
          thread_id: threadId,
          version: state.version,
          msg: `state snapshot not written: ${(err as Error).message}`,
        });
      }
    }
  }
}
