import { LRUCache } from 'lru-cache';
import type { CommittedDelta } from '@switchyard/contracts';

interface Held {
  delta: CommittedDelta;
  /** Its JSON length, counted against the shipping budget. */
  bytes: number;
}

/**
 * The last few committed deltas of each thread, as one orchestrator process committed them: they
 * travel with the next tasks so a node service's StateCache catches up without reading Postgres
 * (`StateCache.get`'s `recent`). Held deltas are always contiguous and end at the thread's newest
 * version this process committed; a step committed on top of anything else (another replica
 * moved the thread meanwhile) starts afresh.
 */
export class RecentDeltas {
  private readonly lru: LRUCache<string, Held[]>;

  constructor(
    private readonly keep: number,
    private readonly maxBytes: number,
    maxThreads = 1000,
  ) {
    this.lru = new LRUCache({ max: maxThreads });
  }

  /**
   * Records the deltas committed on top of `baseVersion` (each with its JSON length) and returns
   * what to ship: the newest held deltas, as many as fit the byte budget (possibly none).
   */
  record(threadId: string, baseVersion: number, deltas: Held[]): CommittedDelta[] {
    const held = this.lru.get(threadId) ?? [];
    const joined = held.at(-1)?.delta.action.id === baseVersion ? [...held, ...deltas] : [...deltas];
    const kept = joined.slice(-this.keep);
    this.lru.set(threadId, kept);
    const shipped: CommittedDelta[] = [];
    let bytes = 0;
    for (let i = kept.length - 1; i >= 0 && bytes + kept[i].bytes <= this.maxBytes; i--) {
      bytes += kept[i].bytes;
      shipped.unshift(kept[i].delta);
    }
    return shipped;
  }
}
