/** Why the orchestrator ended a run as failed; the code goes into `runs.error` and the events. */
export enum RunFailureCode {
  UnknownNode = 'unknown_node',
  MaxStepsExceeded = 'max_steps_exceeded',
  DeltaRejected = 'delta_rejected',
  InvalidDelta = 'invalid_delta',
  NodeFailed = 'node_failed',
  InvalidTask = 'invalid_task',
  TaskTimeout = 'task_timeout',
}

export interface RunFailure {
  code: RunFailureCode | string;
  message: string;
}
