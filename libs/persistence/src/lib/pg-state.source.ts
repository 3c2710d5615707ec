import type { DataSource } from 'typeorm';
import type { Action, CommittedDelta, RuntimeState } from '@switchyard/contracts';
import { type StateSource, applyDelta, emptyState } from '@switchyard/state';
import type { StepSql } from './locked-read';

/**
 * Reads thread state from the checkpoint tables: the latest snapshot at or below a version plus
 * the deltas after it (one indexed range query each).
 */
export class PgStateSource implements StateSource {
  constructor(private readonly ds: DataSource) {}

  async load(threadId: string, version: number, manager: StepSql = this.ds.manager): Promise<RuntimeState> {
    const snaps: { version: number; state: RuntimeState }[] = await manager.query(
      `SELECT version, state FROM state_snapshots WHERE thread_id = $1 AND version <= $2
       ORDER BY version DESC LIMIT 1`,
      [threadId, version],
    );
    // The empty state's run_id is replaced by the first (start) delta.
    const base = snaps[0]?.state ?? emptyState(threadId, threadId);
    const deltas = await this.deltasBetween(threadId, base.version, version, manager);
    const state = deltas.reduce(applyDelta, base);
    if (state.version !== version) {
      throw new VersionGoneError(threadId, version, state.version);
    }
    return state;
  }

  async deltasBetween(
    threadId: string,
    afterVersion: number,
    uptoVersion: number,
    manager: StepSql = this.ds.manager,
  ): Promise<CommittedDelta[]> {
    if (uptoVersion <= afterVersion) {
      return [];
    }
    const rows: { delta: CommittedDelta }[] = await manager.query(
      `SELECT delta FROM state_deltas WHERE thread_id = $1 AND version > $2 AND version <= $3 ORDER BY version`,
      [threadId, afterVersion, uptoVersion],
    );
    return rows.map((r) => r.delta);
  }

  /** The committed actions of one run, in order. */
  async actionsOfRun(runId: string): Promise<Action[]> {
    const rows: { action: Action }[] = await this.ds.query(
      `SELECT delta->'action' AS action FROM state_deltas WHERE run_id = $1 ORDER BY version`,
      [runId],
    );
    return rows.map((r) => r.action);
  }
}

/**
 * The thread's state cannot be read at that version: it is past the log's end, or before where a
 * compacted history (retention, a prune that keeps the latest) now starts.
 */
export class VersionGoneError extends Error {
  readonly retryable = false;
  constructor(
    readonly threadId: string,
    readonly version: number,
    reached: number,
  ) {
    super(`thread ${threadId} has no state at version ${version} (log ends at ${reached})`);
    this.name = 'VersionGoneError';
  }
}
