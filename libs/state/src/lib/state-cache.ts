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

/** A cached state and what it weighs: the bytes of its JSON, counted as it grew. */
interface Entry {
  state: RuntimeState;
  bytes: number;
}

/**
 * What a value weighs: its JSON's length (UTF-16 units, its bytes for ASCII; the log's `bytes` are
 * counted alike). A delta on every step, O(the delta); a whole state only when one is loaded.
 */
export const jsonBytes = (value: unknown): number => JSON.stringify(value).length;

/** What a cache holds by default: 128 MiB of states' JSON (the heap holds some 2–3× that). */
export const DEFAULT_STATE_CACHE_BYTES = 128 * 1024 * 1024;

/**
 * An LRU of thread states, one per thread at the newest version asked for. A task for version v
 * is served from memory when the cached state is at v, by applying only the missing deltas when
 * it is behind (taken from `recent` when those cover the gap, else one indexed query), and by a
 * full load otherwise — or, when `recent` is the thread's whole log, by replaying it.
 *
 * Bounded twice: by threads and by bytes. A state's weight is its JSON's length, counted when it
 * is loaded and then grown by each delta's (so a step weighs its delta, never the state again);
 * the least recently used threads go first. A state heavier than the whole bound is not kept (each
 * of its tasks then reads it): `oversized` counts those, and the bound is configuration.
 */
export class StateCache {
  private readonly lru: LRUCache<string, Entry>;
  readonly stats: StateCacheStats = { hits: 0, catchUps: 0, misses: 0 };
  /** States not kept because one alone weighs more than the cache may hold. */
  oversized = 0;

  constructor(
    private readonly source: StateSource,
    maxThreads = 1000,
    private readonly maxBytes = DEFAULT_STATE_CACHE_BYTES,
  ) {
    this.lru = new LRUCache<string, Entry>({
      max: maxThreads,
      maxSize: maxBytes,
      sizeCalculation: (entry) => Math.max(1, entry.bytes),
    });
  }

  /** The JSON bytes of the states held now. */
  get bytes(): number {
    return this.lru.calculatedSize;
  }

  /** Threads held now. */
  get size(): number {
    return this.lru.size;
  }

  /**
   * `recent`: committed deltas ending at `version`, in order (the orchestrator ships the last few
   * with a task); when they reach back to the cached version, the catch-up needs no query.
   */
  async get(threadId: string, version: number, recent?: CommittedDelta[]): Promise<RuntimeState> {
    const cached = this.lru.get(threadId);
    if (cached && cached.state.version === version) {
      this.stats.hits++;
      return cached.state;
    }
    let entry: Entry;
    if (cached && cached.state.version < version) {
      this.stats.catchUps++;
      const shipped = recent ? coveringSuffix(recent, cached.state.version, version) : undefined;
      const deltas = shipped ?? (await this.source.deltasBetween(threadId, cached.state.version, version));
      entry = { state: deltas.reduce(applyDelta, cached.state), bytes: cached.bytes + weighDeltas(deltas) };
      if (entry.state.version !== version) {
        // A gap in the log (should not happen): fall back to a full load.
        entry = loaded(await this.source.load(threadId, version));
      }
    } else {
      this.stats.misses++;
      // A young thread's whole log may travel with the task (RecentDeltas): replayed on the empty
      // state, as a load without a snapshot does, it needs no read.
      const shipped = recent ? coveringSuffix(recent, 0, version) : undefined;
      entry = shipped
        ? { state: shipped.reduce(applyDelta, emptyState(threadId, threadId)), bytes: weighDeltas(shipped) }
        : loaded(await this.source.load(threadId, version));
    }
    if (!cached || cached.state.version <= entry.state.version) {
      this.keep(threadId, entry);
    }
    return entry.state;
  }

  /**
   * The thread's state at exactly `version` when it is held, else undefined: for a caller that must
   * read it otherwise on a miss (the orchestrator's start, inside its transaction).
   */
  peek(threadId: string, version: number): RuntimeState | undefined {
    const cached = this.lru.get(threadId);
    if (cached?.state.version !== version) {
      return undefined;
    }
    this.stats.hits++;
    return cached.state;
  }

  /**
   * Records a state the caller computed itself (the orchestrator after a commit). `grown`: the
   * state is the one cached at version `from` plus deltas of `bytes` JSON bytes (what the caller
   * wrote to the log), so its weight needs no count; otherwise the state is weighed whole.
   */
  put(state: RuntimeState, grown?: { from: number; bytes: number }): void {
    const cached = this.lru.get(state.thread_id);
    if (cached && cached.state.version > state.version) {
      return;
    }
    const bytes =
      cached && grown && cached.state.version === grown.from
        ? cached.bytes + grown.bytes
        : cached && cached.state === state
          ? cached.bytes
          : jsonBytes(state);
    this.keep(state.thread_id, { state, bytes });
  }

  evict(threadId: string): void {
    this.lru.delete(threadId);
  }

  private keep(threadId: string, entry: Entry): void {
    if (entry.bytes > this.maxBytes) {
      // lru-cache would refuse it too (and drop the older version): say so in the count.
      this.oversized++;
      this.lru.delete(threadId);
      return;
    }
    this.lru.set(threadId, entry);
  }
}

function loaded(state: RuntimeState): Entry {
  return { state, bytes: jsonBytes(state) };
}

function weighDeltas(deltas: readonly CommittedDelta[]): number {
  let bytes = 0;
  for (const d of deltas) {
    bytes += jsonBytes(d);
  }
  return bytes;
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
