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
/**
 * The cancel fence: a key per cancelled run (value: when), kept for an hour. Every node service
 * watches it, so a replica that missed the `sy.cancel.<run_id>` broadcast (disconnected, started
 * later) still learns of the cancel before it starts a task of that run.
 */
export const CANCEL_FENCE_BUCKET = 'sy_cancelled';
export const CANCEL_FENCE_TTL_MS = 3_600_000;

export const SERVICE_NAMES = ['planner', 'tool-executor', 'reflection', 'retrieval', 'output'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/** A node's task: `sy.task.<service>.<node>`. */
export type TaskSubject = `sy.task.${string}.${string}`;
/** A service's deltas: `sy.delta.<service>`. */
export type DeltaSubject = `sy.delta.${string}`;

export const taskSubject = (service: string, node: string): TaskSubject => `sy.task.${service}.${node}`;
export const taskFilter = (service: string): string => `sy.task.${service}.>`;
export const deltaSubject = (service: string): DeltaSubject => `sy.delta.${service}`;
export const cancelSubject = (runId: string): string => `sy.cancel.${runId}`;
/** Where a node service answers a cancel with what it aborted (core NATS, to the orchestrator). */
export const cancelAckSubject = (runId: string): string => `sy.cancel-ack.${runId}`;

/** Consumer filters and handler patterns: where a subscriber's subject strings come from. */
export const SUBJECT_PATTERNS = {
  /** Every run message (the orchestrator's runs consumer). */
  runs: 'sy.run.>',
  /** Every service's deltas (the orchestrator's deltas consumer). */
  deltas: 'sy.delta.>',
  /** A handler for the deltas of any one service. */
  anyDelta: 'sy.delta.*',
  /** A handler for node `node`'s tasks, whichever service serves it. */
  task: (node: string): string => `sy.task.*.${node}`,
  /** A handler for the nodes under a prefix (`mcp.github` → `sy.task.*.mcp.github.>`). */
  taskPrefix: (prefix: string): string => `sy.task.*.${prefix}.>`,
} as const;

/** Is this a node task's subject (not a human task's `human.<node>`)? */
export const isTaskSubject = (subject: string): subject is TaskSubject =>
  /^sy\.task\.[^.]+\..+$/.test(subject);
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

/** Every subject a message is published to over JetStream (`sy.run.resume` carries none: answers arrive as the gateway's deltas). */
export type Subject =
  (typeof SUBJECTS)[Exclude<keyof typeof SUBJECTS, 'runResume'>] | TaskSubject | DeltaSubject;

/** The payload a subject carries: `publish(subject, payload)` is checked against it. */
export type PayloadOf<S extends Subject> = S extends keyof SubjectPayloads
  ? SubjectPayloads[S]
  : S extends TaskSubject
    ? SubjectPayloads['sy.task']
    : S extends DeltaSubject
      ? SubjectPayloads['sy.delta']
      : never;
