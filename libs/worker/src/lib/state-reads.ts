import { Counter, register } from 'prom-client';
import type { StateSource } from '@switchyard/state';

const stateReads =
  (register.getSingleMetric('switchyard_state_reads_total') as Counter | undefined) ??
  new Counter({
    name: 'switchyard_state_reads_total',
    help: "Reads of a thread's state from Postgres by a node service's state cache (a full load, or the deltas it lacks)",
    labelNames: ['kind'],
  });

/**
 * `source` with its reads counted: a node service reads a state only when the task did not bring
 * what its cache lacks (RecentDeltas), so this stays flat while the deltas travel with the tasks.
 */
export function countedReads(source: StateSource): StateSource {
  return {
    load: (threadId, version) => {
      stateReads.inc({ kind: 'load' });
      return source.load(threadId, version);
    },
    deltasBetween: (threadId, after, upto) => {
      stateReads.inc({ kind: 'deltas' });
      return source.deltasBetween(threadId, after, upto);
    },
  };
}
