import { Counter, Gauge, register } from 'prom-client';
import type { ServiceConfig } from './platform.tokens';

/** What the gauges read of a process's state cache (libs/state StateCache). */
export interface WatchedStateCache {
  readonly size: number;
  readonly bytes: number;
  readonly oversized: number;
  readonly stats: { hits: number; catchUps: number; misses: number };
}

/**
 * The process's state cache when Prometheus scrapes: threads and JSON bytes held against the
 * `SWITCHYARD_STATE_CACHE_MB` bound, states too heavy to keep, and how tasks found their state
 * (hit, catch-up on deltas, miss: a load from Postgres). A hit rate that falls while the bytes sit
 * at the bound says the bound is too small for the threads in flight.
 */
function watchStateCache(cache: WatchedStateCache): void {
  if (register.getSingleMetric('switchyard_state_cache')) {
    return;
  }
  new Gauge({
    name: 'switchyard_state_cache',
    help: 'The state cache: threads and bytes held, oversized states not kept',
    labelNames: ['measure'],
    collect() {
      this.set({ measure: 'threads' }, cache.size);
      this.set({ measure: 'bytes' }, cache.bytes);
      this.set({ measure: 'oversized' }, cache.oversized);
    },
  });
  const seen = { hit: 0, catch_up: 0, miss: 0 };
  new Counter({
    name: 'switchyard_state_cache_lookups_total',
    help: 'State lookups by outcome: hit, catch_up (deltas applied), miss (a full load)',
    labelNames: ['outcome'],
    collect() {
      const now = { hit: cache.stats.hits, catch_up: cache.stats.catchUps, miss: cache.stats.misses };
      for (const outcome of ['hit', 'catch_up', 'miss'] as const) {
        this.inc({ outcome }, now[outcome] - seen[outcome]);
        seen[outcome] = now[outcome];
      }
    },
  });
}

/**
 * The process's state cache: made by `make` with the byte bound `SWITCHYARD_STATE_CACHE_MB` sets,
 * and watched by the gauges above (the orchestrator and every node service build theirs so).
 */
export function boundedStateCache<C extends WatchedStateCache>(
  config: ServiceConfig,
  make: (maxBytes: number) => C,
): C {
  const cache = make(config.env.SWITCHYARD_STATE_CACHE_MB * 1024 * 1024);
  watchStateCache(cache);
  return cache;
}
