import type { EventPayload, EventType, OriginFile, RunEvent, RunStatus, Usage } from '@switchyard/contracts';

/** One event of a run's stream, as the gateway sends it: the contracts' own `RunEvent`. */
export type { EventPayload, EventType, OriginFile, RunEvent, RunStatus, Usage };

/** `POST /v1/runs` (docs/api.md). */
export interface CreateRunRequest {
  input: {
    prompt: string;
    files?: OriginFile[];
    /** Graph agents: the Begin component's form (`{field: value | {value}}`). */
    inputs?: Record<string, unknown>;
  };
  history?: { role: 'system' | 'user' | 'assistant'; content: string }[];
  thread_id?: string;
  agent_id?: string;
  agent_version?: string;
  /** The idempotency key: the same id returns the same run. The client makes one when absent. */
  request_id?: string;
  multitask?: 'reject' | 'enqueue' | 'interrupt';
  metadata?: Record<string, unknown>;
}

export interface Run {
  run_id: string;
  thread_id: string;
  agent_id: string;
  turn: number | null;
  status: RunStatus;
  created_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  steps: number;
  usage: Usage;
  output: { answer?: string; [key: string]: unknown } | null;
  error: { code: string; message: string } | null;
  metadata: Record<string, unknown>;
}

/** A committed action of a run (`GET /v1/runs/:id/actions`). */
export interface RunAction {
  id: number;
  node: string;
  summary: string;
  next: string[];
  usage: Usage;
  result?: unknown;
  error?: { code: string; message: string };
  [key: string]: unknown;
}

/** The stream's own notice that part of the history could not be replayed (see docs/api.md). */
export interface ResetEvent {
  run_id: string;
  event_type: 'reset';
  payload: { reason: string };
  ts: number;
}

export interface Thread {
  thread_id: string;
  [key: string]: unknown;
}

export interface ThreadState {
  thread_id: string;
  version: number;
  state: Record<string, unknown>;
  [key: string]: unknown;
}

export interface Agent {
  id: string;
  name: string;
  kind?: 'default' | 'graph';
  version?: string;
  [key: string]: unknown;
}
