import type {
  Breakpoints,
  ClientRequestOptions,
  RunFork,
  RunPriority,
  RunStatus,
  TaskSubject,
} from '@switchyard/contracts';

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
  /** Its tasks' place within the tenant's at every node (`batch` yields to `interactive`). */
  priority: RunPriority;
  input: ClientRequestOptions & {
    prompt: string;
    files?: unknown[];
    history?: { role: 'user' | 'assistant' | 'system'; content: string }[];
    fork?: RunFork;
    breakpoints?: Breakpoints;
  };
  /** Its agent's task deadlines per node (`node_timeouts_ms`), pinned at creation; null: none. */
  node_timeouts?: Readonly<Record<string, number>> | null;
  /** The run's trace (the gateway's `run.create` span), when it is kept. */
  trace_parent?: string | null;
}

/** The columns of RunRow that live on `runs` (as a list, for the Kysely repositories). */
export const RUN_COLUMN_LIST = [
  'id',
  'tenant_id',
  'thread_id',
  'agent_id',
  'status',
  'turn',
  'steps',
  'max_steps',
  'cancel_requested',
  'priority',
  'input',
  'node_timeouts',
] as const;

export const RUN_COLUMNS = RUN_COLUMN_LIST.join(', ');

/**
 * A task's time to answer at `node`: the run's agent's own setting for it, else the node's own
 * (what it registered), else the deployment's (SWITCHYARD_TASK_TIMEOUT_MS).
 */
export function taskTimeoutMs(
  run: Pick<RunRow, 'node_timeouts'>,
  node: string,
  reg: { timeout_ms?: number } | undefined,
  fallbackMs: number,
): number {
  return run.node_timeouts?.[node] ?? reg?.timeout_ms ?? fallbackMs;
}

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
  /** The run's tenant and priority, which the node services dispatch by (fair dispatch). */
  tenant_id?: string;
  priority?: RunPriority;
}

/**
 * The columns of a task row the outbox publishes, for a query over `run_tasks t JOIN runs r`
 * (the sweep and the reaper read them back from Postgres).
 */
export const TASK_COLUMNS =
  't.id, t.run_id, t.thread_id, t.turn, t.step, t.seq, t.call_index, t.node, t.subject, t.version, t.attempt, t.deadline, t.trace_parent, r.tenant_id, r.priority';
