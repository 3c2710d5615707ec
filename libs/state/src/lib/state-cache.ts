import { LRUCache } from 'lru-cache';
import type { CommittedDelta, RuntimeState } from '@switchyard/contracts';
import { applyDelta, emptyState } from './apply-delta';

/** Where the cache reads the truth from (Postgres in production: libs/persistence). */
export interface StateSource {
  /** The state at exactly `version` (latest snapshot ≤ version + the deltas after it). */
  load(threadId: string, version: number): Promise<RuntimeState>;
  /** The committed deltas with afterVersion < version ≤ uptoVersion, in order. */
  deltasBetween(threadId: string, afterVersion: number, uptoVersion: number): Promise<CommittedDelta[]>;
}

export interface StateCacheStats {
  hits: number;
  catchUps: number;
  misses: number;
}

/**
 * An LRU of thread states, one per thread at the newest version asked for. A task for version v
 * is served from memory when the cached state is at v, by applying only the missing deltas when
 * it is behind (taken from `recent` when those cover the gap, else one indexed query), and by a
 * full load otherwise — or, when `recent` is the thread's whole log, by replaying it.
 */
export class StateCache {
  private readonly lru: LRUCache<string, RuntimeState>;
  readonly stats: StateCacheStats = { hits: 0, catchUps: 0, misses: 0 };

  constructor(
    private readonly source: StateSource,
    maxThreads = 1000,
  ) {
    this.lru = new LRUCache({ max: maxThreads });
  }

  /**
   * `recent`: committed deltas ending at `version`, in order (the orchestrator ships the last few
   * with a task); when they reach back to the cached version, the catch-up needs no query.
   */
  async get(threadId: string, version: number, recent?: CommittedDelta[]): Promise<RuntimeState> {
    const cached = this.lru.get(threadId);
    if (cached && cached.version === version) {
      this.stats.hits++;
      return cached;
    }
    let state: RuntimeState;
    if (cached && cached.version < version) {
      this.stats.catchUps++;
      const shipped = recent ? coveringSuffix(recent, cached.version, version) : undefined;
      const deltas = shipped ?? (await this.source.deltasBetween(threadId, cached.version, version));
      state = deltas.reduce(applyDelta, cached);
      if (state.version !== version) {
        // A gap in the log (should not happen): fall back to a full load.
        state = await this.source.load(threadId, version);
      }
    } else {
      this.stats.misses++;
      // A young thread's whole log may travel with the task (RecentDeltas): replayed on the empty
      // state, as a load without a snapshot does, it needs no read.
      const shipped = recent ? coveringSuffix(recent, 0, version) : undefined;
      state = shipped
        ? shipped.reduce(applyDelta, emptyState(threadId, threadId))
        : await this.source.load(threadId, version);
    }
    if (!cached || cached.version <= state.version) {
      this.lru.set(threadId, state);
    }
    return state;
  }

  /** Records a state the caller computed itself (the orchestrator after a commit). */
  put(state: RuntimeState): void {
    const cached = this.lru.get(state.thread_id);
    if (!cached || cached.version <= state.version) {
      this.lru.set(state.thread_id, state);
    }
  }

  evict(threadId: string): void {
    this.lru.delete(threadId);
  }
}

/** The deltas of `recent` with from < version ≤ upto, if they are exactly those versions. */
function coveringSuffix(recent: CommittedDelta[], from: number, upto: number): CommittedDelta[] | undefined {
  const start = recent.findIndex((d) => d.action.id === from + 1);
  if (start < 0) {
    return undefined;
  }
  const suffix = recent.slice(start);
  return suffix.length === upto - from && suffix.every((d, i) => d.action.id === from + 1 + i)
    ? suffix
    : undefined;
}
