import type { z } from 'zod';
import type {
  Action,
  AgentVersionListSchema,
  AgentVersionSchema,
  AgentViewSchema,
  CancelledRunSchema,
  CollectionSchema,
  CreateAgentSchema,
  CreateCollectionSchema,
  CreateKeySchema,
  CreateRunSchema,
  CreateTenantSchema,
  CreatedAgentSchema,
  CreatedApiKeySchema,
  CreatedRunSchema,
  DeletedAgentSchema,
  EventPayload,
  EventType,
  ForkRequestSchema,
  ForkResponseSchema,
  IngestDocumentsSchema,
  IngestedSchema,
  ListRunsQuerySchema,
  ListThreadsQuerySchema,
  OriginFile,
  PatchAgentSchema,
  ResumeSchema,
  ResumedRunSchema,
  RunEvent,
  RunPageSchema,
  RunPriority,
  RunStatus,
  RunViewSchema,
  RuntimeState,
  SearchRequestSchema,
  SearchResponseSchema,
  StoredFileSchema,
  TenantSchema,
  ThreadPageSchema,
  ThreadVersionSchema,
  ThreadViewSchema,
  ToolListSchema,
  ToolViewSchema,
  Usage,
  UsagePageSchema,
  UsageQuerySchema,
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

/** The answer to `runs.cancel`: `cancelling` (202), or `cancelled` when it already was (200). */
export type CancelledRun = z.infer<typeof CancelledRunSchema>;

/** `runs.resume`'s answer to the run's question (checked against the question's input schema). */
export type ResumeInput = z.input<typeof ResumeSchema>['input'];

/** The answer to `runs.resume`: the answer was taken, the run goes on. */
export type ResumedRun = z.infer<typeof ResumedRunSchema>;

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

/** An agent's published versions, oldest first (`GET /v1/agents/:id/versions`). */
export type AgentVersionList = z.infer<typeof AgentVersionListSchema>;

/** The answer to `DELETE /v1/agents/:id`. */
export type DeletedAgent = z.infer<typeof DeletedAgentSchema>;

/** `POST /v1/collections`: the collection's name and index sets. */
export type CreateCollectionRequest = z.input<typeof CreateCollectionSchema>;

/** A knowledge collection (the block) with the status of its index sets. */
export type Collection = z.infer<typeof CollectionSchema>;

/** `POST /v1/collections/:id/documents` as JSON: the documents' text and metadata. */
export type IngestDocumentsRequest = z.input<typeof IngestDocumentsSchema>;

/** The answer to an ingestion: how many documents went in. */
export type Ingested = z.infer<typeof IngestedSchema>;

/** `POST /v1/collections/:id/search`. */
export type CollectionSearchRequest = z.input<typeof SearchRequestSchema>;

/** The chunks found, best first. */
export type CollectionSearchResult = z.infer<typeof SearchResponseSchema>;

/** A tool the caller's runs can be offered (`GET /v1/tools`). */
export type Tool = z.infer<typeof ToolViewSchema>;

export type ToolList = z.infer<typeof ToolListSchema>;

/** `POST /v1/admin/tenants`. */
export type CreateTenantRequest = z.input<typeof CreateTenantSchema>;

/** A tenant, with its budget, limits, memory model and weight. */
export type Tenant = z.infer<typeof TenantSchema>;

/** `POST /v1/admin/tenants/:id/keys`: an optional label. */
export type CreateKeyRequest = z.input<typeof CreateKeySchema>;

/** A new API key: `key` is shown only in this answer. */
export type CreatedApiKey = z.infer<typeof CreatedApiKeySchema>;

/** `GET /v1/admin/usage` filters; `limit` a number (the query string carries it as text). */
export type UsageQuery = Omit<z.input<typeof UsageQuerySchema>, 'limit'> & { limit?: number };

/** A page of metered model calls; `next_cursor` is null on the last page. */
export type UsagePage = z.infer<typeof UsagePageSchema>;

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
