import type { z } from 'zod';
import type {
  Action,
  AgentVersionSchema,
  AgentViewSchema,
  CreateAgentSchema,
  CreateRunSchema,
  CreatedAgentSchema,
  CreatedRunSchema,
  EventPayload,
  EventType,
  ForkRequestSchema,
  ForkResponseSchema,
  ListRunsQuerySchema,
  ListThreadsQuerySchema,
  OriginFile,
  PatchAgentSchema,
  RunEvent,
  RunPageSchema,
  RunPriority,
  RunStatus,
  RunViewSchema,
  RuntimeState,
  StoredFileSchema,
  ThreadPageSchema,
  ThreadVersionSchema,
  ThreadViewSchema,
  Usage,
} from '@switchyard/contracts';

// The API's shapes are the gateway's own zod schemas (@switchyard/contracts, src/lib/api): a
// request type is what the schema accepts (`z.input`), a response type what the gateway answers
// (`z.infer`). Nothing here is written twice, so the client cannot disagree with the gateway.

/** One event of a run's stream, as the gateway sends it: the contracts' own `RunEvent`. */
export type { EventPayload, EventType, OriginFile, RunEvent, RunPriority, RunStatus, Usage };

/** `POST /v1/runs` (docs/api.md); the client makes `request_id` (the idempotency key) when absent. */
export type CreateRunRequest = z.input<typeof CreateRunSchema>;

/** The answer to `POST /v1/runs`: the run, queued (the same `request_id` answers the same run). */
export type CreatedRun = z.infer<typeof CreatedRunSchema>;

/** A run (`GET /v1/runs/:id`). */
export type Run = z.infer<typeof RunViewSchema>;

/** A committed action of a run (`GET /v1/runs/:id/actions`): the contracts' own `Action`. */
export type RunAction = Action;

/** The stream's own notice that part of the history could not be replayed (see docs/api.md). */
export interface ResetEvent {
  run_id: string;
  event_type: 'reset';
  payload: { reason: string };
  ts: number;
}

/** A file of the tenant (`POST /v1/files`, `GET /v1/files/:id`). */
export type StoredFile = z.infer<typeof StoredFileSchema>;

/** A thread (`GET /v1/threads/:id`). */
export type Thread = z.infer<typeof ThreadViewSchema>;

/** `GET /v1/threads` (docs/api.md); `limit` a number (the query string carries it as text). */
export type ListThreadsQuery = Omit<z.input<typeof ListThreadsQuerySchema>, 'limit'> & { limit?: number };

export type ThreadPage = z.infer<typeof ThreadPageSchema>;

/** The thread's state at a version (`GET /v1/threads/:id/state`): the RuntimeState itself. */
export type ThreadState = RuntimeState;

/** One version of a thread: the step that wrote it. */
export type ThreadVersion = z.infer<typeof ThreadVersionSchema>;

/** An agent (`GET /v1/agents/:id`): its draft and latest published version. */
export type Agent = z.infer<typeof AgentViewSchema>;

/** `POST /v1/agents`: the agent's configuration. */
export type CreateAgentRequest = z.input<typeof CreateAgentSchema>;

/** `PATCH /v1/agents/:id`: the draft's fields to replace. */
export type PatchAgentRequest = z.input<typeof PatchAgentSchema>;

/** The answer to `POST /v1/agents`: its configuration with version 1 published. */
export type CreatedAgent = z.infer<typeof CreatedAgentSchema>;

/** A published version of an agent (`POST /v1/agents/:id/versions`). */
export type AgentVersion = z.infer<typeof AgentVersionSchema>;

/**
 * Filters of `runs.list` (`GET /v1/runs`): `status` one status or several, comma-separated;
 * `since`/`until` ISO times; `limit` a number (the query string carries it as text).
 */
export type ListRunsQuery = Omit<z.input<typeof ListRunsQuerySchema>, 'limit'> & { limit?: number };

/** A page of runs; `next_cursor` is null on the last page. */
export type RunPage = z.infer<typeof RunPageSchema>;

/** `threads.fork`: where to branch, the edits to the state there, and how to go on. */
export type ForkRequest = z.input<typeof ForkRequestSchema>;

/** The branch: where it left and the run that goes on from there. */
export type ForkResult = z.infer<typeof ForkResponseSchema>;
