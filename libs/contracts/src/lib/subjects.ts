import type {
  DeltaMessage,
  RunCancelMessage,
  RunFailMessage,
  RunStartMessage,
  TaskMessage,
} from './messages.schema';

// Streams and subjects (DESIGN.md §4). NATS 2.9 allows one filter subject per consumer, so
// subjects are grouped by the service that consumes them.

export const STREAMS = {
  runs: { name: 'SY_RUNS', subjects: ['sy.run.>'] },
  tasks: { name: 'SY_TASKS', subjects: ['sy.task.>'] },
  deltas: { name: 'SY_DELTAS', subjects: ['sy.delta.>'] },
} as const;

export const SUBJECTS = {
  runStart: 'sy.run.start',
  runCancel: 'sy.run.cancel',
  runResume: 'sy.run.resume',
  runFail: 'sy.run.fail',
} as const;

export const NODE_REGISTRY_BUCKET = 'sy_nodes';

export const SERVICE_NAMES = ['planner', 'tool-executor', 'reflection', 'retrieval', 'output'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

export const taskSubject = (service: string, node: string): string => `sy.task.${service}.${node}`;
export const taskFilter = (service: string): string => `sy.task.${service}.>`;
export const deltaSubject = (service: string): string => `sy.delta.${service}`;
export const cancelSubject = (runId: string): string => `sy.cancel.${runId}`;
/**
 * Core NATS, no payload: the gateway wrote the model registry (vendors, keys, endpoints, models,
 * parsers, budgets). Services reload their copy at once; correctness does not rest on it (every
 * call checks the registry's revision), it only spares the next call the reload.
 */
export const REGISTRY_CHANGED_SUBJECT = 'sy.registry.changed';

/** One typed map from subject family to payload, used by publishers and handlers alike. */
export interface SubjectPayloads {
  'sy.run.start': RunStartMessage;
  'sy.run.cancel': RunCancelMessage;
  'sy.run.fail': RunFailMessage;
  'sy.task': TaskMessage;
  'sy.delta': DeltaMessage;
}
