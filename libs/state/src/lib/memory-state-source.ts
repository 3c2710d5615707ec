import type { CommittedDelta, RuntimeState } from '@switchyard/contracts';
import { applyDelta, emptyState } from './apply-delta';
import type { StateSource } from './state-cache';

/**
 * A StateSource over thread logs held in memory: the state at a version is the log folded up to
 * it. For tests and benches of what reads state (the cache, the orchestrator's use cases); it
 * passes the same conformance suite as the Postgres one (libs/state, stateSourceConformance).
 */
export class MemoryStateSource implements StateSource {
  constructor(readonly logs = new Map<string, CommittedDelta[]>()) {}

  /** Appends committed deltas to the thread's log (versions continue from its end). */
  append(threadId: string, deltas: readonly CommittedDelta[]): void {
    this.logs.set(threadId, [...(this.logs.get(threadId) ?? []), ...deltas]);
  }

  async load(threadId: string, version: number): Promise<RuntimeState> {
    const log = this.logs.get(threadId) ?? [];
    if (!Number.isInteger(version) || version < 0 || version > log.length) {
      throw new Error(`thread ${threadId} has no state at version ${version} (log ends at ${log.length})`);
    }
    return log.slice(0, version).reduce(applyDelta, emptyState(threadId, threadId));
  }

  async deltasBetween(
    threadId: string,
    afterVersion: number,
    uptoVersion: number,
  ): Promise<CommittedDelta[]> {
    return uptoVersion <= afterVersion
      ? []
      : (this.logs.get(threadId) ?? []).slice(Math.max(0, afterVersion), uptoVersion);
  }
}
