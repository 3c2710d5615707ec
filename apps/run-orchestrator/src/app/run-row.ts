import type { ClientRequestOptions, RunFork, RunStatus, TaskSubject } from '@switchyard/contracts';

/** The columns of `runs` the orchestrator reads under the run's row lock. */
export interface RunRow {
  id: string;
  tenant_id: string;
  thread_id: string;
  agent_id: string;
  status: RunStatus;
  turn: number | null;
  steps: number;
  max_steps: number;
  cancel_requested: boolean;
  input: ClientRequestOptions & {
    prompt: string;
    files?: unknown[];
    history?: { role: 'user' | 'assistant' | 'system'; content: string }[];
    fork?: RunFork;
  };
  /** The run's trace (the gateway's `run.create` span), when it is kept. */
  trace_parent?: string | null;
  /** The thread's latest snapshot version, when the caller read the thread row with the run. */
  snapshot_version?: number;
}

export const RUN_COLUMNS =
  'id, tenant_id, thread_id, agent_id, status, turn, steps, max_steps, cancel_requested, input';

/** A task row as the outbox publishes it. */
export interface TaskRow {
  id: string;
  run_id: string;
  thread_id: string;
  turn: number;
  step: number;
  seq: number;
  call_index: number;
  node: string;
  /** A human task's (`human.<node>`) is never published: the gateway answers it. */
  subject: TaskSubject | `human.${string}`;
  version: number;
  attempt: number;
  deadline: Date;
  /** The trace it was dispatched under (see TaskOutbox.publish). */
  trace_parent?: string | null;
}
