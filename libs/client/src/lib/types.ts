import type {
  EventPayload,
  EventType,
  OriginFile,
  RunEvent,
  RunStatus,
  RuntimeState,
  Usage,
} from '@switchyard/contracts';

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
  /** `batch`: the run's tasks yield to the tenant's interactive runs' tasks at every node (default `interactive`). */
  priority?: RunPriority;
  metadata?: Record<string, unknown>;
}

/** A run's dispatch priority within its tenant (`POST /v1/runs` `priority`). */
export type RunPriority = 'interactive' | 'batch';

export interface Run {
  run_id: string;
  thread_id: string;
  agent_id: string;
  /** The agent version the run pinned (null: the built-in agent, or a draft). */
  agent_version_id?: string | null;
  turn: number | null;
  status: RunStatus;
  priority: RunPriority;
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

/** A file of the tenant (`POST /v1/files`, `GET /v1/files/:id`). */
export interface StoredFile {
  id: string;
  name: string;
  mime_type: string;
  size: number;
  /** The run whose component made it; null for an upload. */
  run_id: string | null;
  created_at: string;
}

/** A thread (`GET /v1/threads/:id`). */
export interface Thread {
  thread_id: string;
  agent_id: string;
  created_at: string;
  /** Runs started on it. */
  turns: number;
  version: number;
  /** The run under way (queued, running or waiting), if any. */
  active_run_id: string | null;
  /** Made from the first turn (null until then). */
  title: string | null;
}

/** `GET /v1/threads` (docs/api.md). */
export interface ListThreadsQuery {
  agent_id?: string;
  since?: string;
  until?: string;
  limit?: number;
  cursor?: string;
}

export interface ThreadPage {
  threads: Thread[];
  next_cursor: string | null;
}

/** The thread's state at a version (`GET /v1/threads/:id/state`): the RuntimeState itself. */
export type ThreadState = RuntimeState;

/** One version of a thread: the step that wrote it. */
export interface ThreadVersion {
  version: number;
  run_id: string | null;
  node: string | null;
  created_at: string;
  from_version?: number;
}

export interface Agent {
  id: string;
  name: string;
  /** The configuration being edited (`kind`, a graph agent's `dsl`, prompt, tools, models…). */
  draft?: { kind?: 'default' | 'graph'; dsl?: Record<string, unknown>; [key: string]: unknown };
  /** The id of the latest published version, and its number. */
  version?: string;
  version_number?: number;
  [key: string]: unknown;
}

/** Filters of `runs.list` (`GET /v1/runs`). */
export interface ListRunsQuery {
  /** One status or several, comma-separated. */
  status?: string;
  agent_id?: string;
  thread_id?: string;
  /** ISO times: created at or after `since`, before `until`. */
  since?: string;
  until?: string;
  limit?: number;
  cursor?: string;
}

/** A page of runs; `next_cursor` is null on the last page. */
export interface RunPage {
  runs: Run[];
  next_cursor: string | null;
}

/** `threads.fork`: where to branch, the edits to the state there, and how to go on. */
export interface ForkRequest {
  version: number;
  edits?: { op: 'add' | 'replace' | 'remove' | 'test'; path: string; value?: unknown }[];
  input?: CreateRunRequest['input'];
  continue?: boolean;
  request_id?: string;
  [key: string]: unknown;
}

/** The branch: where it left and the run that goes on from there. */
export interface ForkResult {
  thread_id: string;
  from_version: number;
  pending: string[];
  run: { run_id: string; thread_id: string; status: RunStatus; created_at: string };
}
