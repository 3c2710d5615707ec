import type { AnyRunErrorCode, RunErrorCode } from '@switchyard/contracts';

/** Why the orchestrator ended a run as failed; the code goes into `runs.error` and the events. */
export const RunFailureCode = {
  UnknownNode: 'unknown_node',
  MaxStepsExceeded: 'max_steps_exceeded',
  DeltaRejected: 'delta_rejected',
  InvalidDelta: 'invalid_delta',
  NodeFailed: 'node_failed',
  InvalidTask: 'invalid_task',
  TaskTimeout: 'task_timeout',
} as const satisfies Record<string, RunErrorCode>;

/** A run's failure: the orchestrator's own code, or the failing action's (passed on as it came). */
export interface RunFailure {
  code: AnyRunErrorCode;
  message: string;
}
