import { z } from 'zod';

// The request bodies of the LangGraph-compatible surface (LANGGRAPH_API.md §2). Unknown fields
// are ignored, as LangGraph Platform does; options Switchyard cannot honour are refused with a
// 400 that names them (run-create.ts), never dropped.

const Metadata = z.record(z.string(), z.unknown());

/** `POST /assistants/count`. */
export const AssistantCountSchema = z.object({
  graph_id: z.string().min(1).optional(),
  name: z.string().min(1).optional(),
  metadata: Metadata.optional(),
});

export const AssistantSearchSchema = z.object({
  graph_id: z.string().min(1).optional(),
  name: z.string().min(1).optional(),
  metadata: Metadata.optional(),
  limit: z.number().int().min(1).max(1000).default(10),
  offset: z.number().int().min(0).default(0),
  sort_by: z.enum(['assistant_id', 'graph_id', 'name', 'created_at', 'updated_at']).default('created_at'),
  sort_order: z.enum(['asc', 'desc']).default('desc'),
  select: z.array(z.string()).optional(),
});
export type AssistantSearch = z.infer<typeof AssistantSearchSchema>;

export const AssistantVersionsSchema = z.object({
  metadata: Metadata.optional(),
  limit: z.number().int().min(1).max(1000).default(10),
  offset: z.number().int().min(0).default(0),
});

/** `config` of an assistant: its `configurable` (agent settings) and `recursion_limit` (max_steps). */
const AssistantConfig = z.record(z.string(), z.unknown());

/** `POST /assistants`: an assistant made from an agent (its graph) with settings of its own. */
export const AssistantCreateSchema = z.object({
  graph_id: z.string().min(1).max(200),
  assistant_id: z.string().uuid('assistant_id must be a UUID').optional(),
  if_exists: z.enum(['raise', 'do_nothing']).default('raise'),
  config: AssistantConfig.nullish(),
  context: z.record(z.string(), z.unknown()).nullish(),
  metadata: Metadata.nullish(),
  name: z.string().trim().min(1).max(200).nullish(),
  description: z.string().max(2000).nullish(),
});
export type AssistantCreate = z.infer<typeof AssistantCreateSchema>;

/** `PATCH /assistants/{id}`: a new version; what is not sent is the current version's. */
export const AssistantUpdateSchema = AssistantCreateSchema.omit({
  assistant_id: true,
  if_exists: true,
}).extend({ graph_id: z.string().min(1).max(200).nullish() });
export type AssistantUpdate = z.infer<typeof AssistantUpdateSchema>;

export const AssistantLatestSchema = z.object({ version: z.number().int().min(1) });

export const ThreadCreateSchema = z.object({
  thread_id: z.string().uuid('thread_id must be a UUID').optional(),
  metadata: Metadata.default({}),
  if_exists: z.enum(['raise', 'do_nothing']).default('raise'),
  supersteps: z.unknown().optional(),
  ttl: z.unknown().optional(),
});
export type ThreadCreate = z.infer<typeof ThreadCreateSchema>;

export const THREAD_STATUSES = ['idle', 'busy', 'interrupted', 'error'] as const;
export type LgThreadStatus = (typeof THREAD_STATUSES)[number];
const ThreadFilter = {
  metadata: Metadata.optional(),
  values: Metadata.optional(),
  status: z.enum(THREAD_STATUSES).optional(),
};

/** `POST /threads/search` (the SDK's `threads.search`). */
export const ThreadSearchSchema = z.object({
  ...ThreadFilter,
  ids: z.array(z.string().uuid('ids: every id must be a UUID')).optional(),
  limit: z.number().int().min(1).max(1000).default(10),
  offset: z.number().int().min(0).default(0),
  sort_by: z
    .enum(['thread_id', 'status', 'created_at', 'updated_at', 'state_updated_at'])
    .default('created_at'),
  sort_order: z.enum(['asc', 'desc']).default('desc'),
  select: z.array(z.string()).optional(),
});
export type ThreadSearch = z.infer<typeof ThreadSearchSchema>;

/** `POST /threads/prune` (langgraph-sdk 1.x's `threads.prune`). */
export const ThreadPruneSchema = z.object({
  thread_ids: z.array(z.string().uuid('thread_ids: every id must be a UUID')).min(1).max(1000),
  // delete: the threads go; keep_latest: each keeps its latest state only (its history folded).
  strategy: z.enum(['delete', 'keep_latest']).default('delete'),
});
export type ThreadPrune = z.infer<typeof ThreadPruneSchema>;

/** `POST /threads/count`. */
export const ThreadCountSchema = z.object(ThreadFilter);
export type ThreadCount = z.infer<typeof ThreadCountSchema>;

/** `PATCH /threads/{id}`: metadata merged into the thread's; a TTL is refused (not kept). */
export const ThreadUpdateSchema = z
  .object({
    metadata: Metadata.optional(),
    ttl: z.unknown().optional(),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.ttl !== undefined && v.ttl !== null) {
      ctx.addIssue({
        code: 'custom',
        path: ['ttl'],
        message:
          'thread TTLs are not supported: delete the thread (DELETE /threads/{id}) or rely on retention',
      });
    }
  });
export type ThreadUpdate = z.infer<typeof ThreadUpdateSchema>;

const StreamModes = ['values', 'updates', 'messages-tuple'] as const;
export type StreamMode = (typeof StreamModes)[number];

export const StreamModeSchema = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((v, ctx): StreamMode[] => {
    const modes = v === undefined ? [] : Array.isArray(v) ? v : [v];
    for (const m of modes) {
      if (!(StreamModes as readonly string[]).includes(m)) {
        ctx.addIssue({
          code: 'custom',
          message: `stream_mode "${m}" is not supported (supported: ${StreamModes.join(', ')})`,
        });
      }
    }
    // useStream sends [] when the component reads no state: that means "values".
    return modes.length ? [...new Set(modes as StreamMode[])] : ['values'];
  });

export const RunCreateSchema = z.object({
  assistant_id: z.string().min(1, 'assistant_id is required'),
  input: z.unknown().optional(),
  command: z.unknown().optional(),
  config: z.unknown().optional(),
  context: z.unknown().optional(),
  metadata: Metadata.optional(),
  stream_mode: StreamModeSchema,
  stream_subgraphs: z.boolean().optional(),
  stream_resumable: z.boolean().optional(),
  feedback_keys: z.array(z.string()).optional(),
  interrupt_before: z.union([z.literal('*'), z.array(z.string())]).optional(),
  interrupt_after: z.union([z.literal('*'), z.array(z.string())]).optional(),
  checkpoint: z.unknown().optional(),
  checkpoint_id: z.string().optional(),
  webhook: z
    .string()
    .max(2048)
    .url('webhook must be an http(s) URL')
    .refine((u) => /^https?:$/.test(new URL(u).protocol), 'webhook must be an http(s) URL')
    .optional(),
  multitask_strategy: z.enum(['reject', 'interrupt', 'rollback', 'enqueue']).default('reject'),
  on_completion: z.enum(['delete', 'keep']).optional(),
  on_disconnect: z.enum(['cancel', 'continue']).default('continue'),
  after_seconds: z.number().min(0).max(2_592_000, 'at most 30 days').optional(),
  if_not_exists: z.enum(['create', 'reject']).default('reject'),
  durability: z.enum(['sync', 'async', 'exit']).optional(),
  checkpoint_during: z.boolean().optional(),
  langsmith_tracer: z.unknown().optional(),
  strict_resume: z.boolean().optional(),
});
export type RunCreate = z.infer<typeof RunCreateSchema>;

/** `POST /runs/cancel` (the SDK's `runs.cancelMany`): runs by id, or every run in a status. */
export const CancelManySchema = z
  .object({
    thread_id: z.string().uuid('thread_id must be a UUID').nullable().optional(),
    run_ids: z
      .array(z.string().uuid('run_ids: every id must be a UUID'))
      .min(1)
      .max(1000)
      .nullable()
      .optional(),
    status: z.enum(['pending', 'running', 'all']).nullable().optional(),
  })
  .refine((b) => (b.run_ids ? 1 : 0) + (b.status ? 1 : 0) === 1, {
    message: 'send run_ids (with or without thread_id) or status, not both',
  });
export type CancelMany = z.infer<typeof CancelManySchema>;

/** `POST /runs/batch`: stateless runs, each a RunCreate. */
export const RunBatchSchema = z
  .array(RunCreateSchema)
  .min(1, 'send at least one run')
  .max(100, 'at most 100 runs a batch');

export const CancelQuerySchema = z.object({
  wait: z.enum(['0', '1', 'true', 'false']).default('0'),
  action: z.enum(['interrupt', 'rollback']).default('interrupt'),
  reason: z.string().optional(),
});

export const HistorySchema = z.object({
  limit: z.number().int().min(1).max(1000).default(10),
  before: z
    .union([z.string(), z.object({ configurable: z.object({ checkpoint_id: z.string() }).passthrough() })])
    .optional(),
  metadata: Metadata.optional(),
  checkpoint: z.object({ checkpoint_id: z.string().optional() }).passthrough().optional(),
  select: z.array(z.string()).optional(),
});
export type History = z.infer<typeof HistorySchema>;

/** `POST /threads/{id}/state` (the SDK's `threads.updateState`). */
export const UpdateStateSchema = z
  .object({
    values: z.unknown().optional(),
    as_node: z.string().nullable().optional(),
    checkpoint: z.unknown().optional(),
    checkpoint_id: z.string().optional(),
  })
  .strict();
export type UpdateState = z.infer<typeof UpdateStateSchema>;

// The store (LangGraph's `client.store`). A namespace is a path of labels; the SDK joins them
// with "." in a query string, so a label holds no ".".
const Label = z
  .string()
  .min(1, 'a namespace label is not empty')
  .max(200)
  .refine((l) => !l.includes('.'), 'a namespace label holds no "."');
export const NamespaceSchema = z.array(Label).min(1, 'namespace: at least one label').max(20);
const StoreKey = z.string().min(1, 'key is required').max(1024);

export const StorePutSchema = z.object({
  namespace: NamespaceSchema,
  key: StoreKey,
  value: z.record(z.string(), z.unknown()),
  // false: not indexed; a list: the value's fields whose text is indexed ("$": the whole value).
  index: z
    .union([z.literal(false), z.array(z.string().min(1)).min(1)])
    .nullable()
    .optional(),
  // Minutes; null or absent: kept until deleted.
  ttl: z.number().positive().max(52_560_000).nullable().optional(),
});
export type StorePut = z.infer<typeof StorePutSchema>;

export const StoreItemQuerySchema = z.object({
  namespace: z
    .string()
    .min(1, 'namespace is required')
    .transform((v) => v.split('.'))
    .pipe(NamespaceSchema),
  key: StoreKey,
  refresh_ttl: z.enum(['true', 'false', '1', '0']).optional(),
});

export const StoreDeleteSchema = z.object({ namespace: NamespaceSchema, key: StoreKey });

/** `filter`: a value's top-level fields, each a value (equal) or `{$eq|$ne|$gt|$gte|$lt|$lte: v}`. */
export const StoreFilterSchema = z.record(z.string(), z.unknown());

export const StoreSearchSchema = z.object({
  namespace_prefix: z.array(Label).max(20).default([]),
  filter: StoreFilterSchema.nullable().optional(),
  limit: z.number().int().min(1).max(1000).default(10),
  offset: z.number().int().min(0).default(0),
  query: z.string().min(1).nullable().optional(),
  refresh_ttl: z.boolean().nullable().optional(),
});
export type StoreSearch = z.infer<typeof StoreSearchSchema>;

export const StoreNamespacesSchema = z.object({
  prefix: z.array(Label).max(20).nullable().optional(),
  suffix: z.array(Label).max(20).nullable().optional(),
  max_depth: z.number().int().min(1).max(20).nullable().optional(),
  limit: z.number().int().min(1).max(1000).default(100),
  offset: z.number().int().min(0).default(0),
});
export type StoreNamespaces = z.infer<typeof StoreNamespacesSchema>;

/** `POST /runs/crons`, `POST /threads/{id}/runs/crons`: a run made on a schedule. */
export const CronCreateSchema = z.object({
  assistant_id: z.string().min(1, 'assistant_id is required'),
  // Five fields (minute … weekday), or six with seconds first; see CronSchedules.
  schedule: z.string().trim().min(1, 'schedule is required').max(200),
  timezone: z.string().min(1).max(100).optional(),
  end_time: z
    .string()
    .datetime({ offset: true, message: 'end_time must be an ISO date-time' })
    .nullable()
    .optional(),
  input: z.unknown().optional(),
  metadata: Metadata.optional(),
  config: z.unknown().optional(),
  context: z.unknown().optional(),
  webhook: z.string().optional(),
  multitask_strategy: z.enum(['reject', 'interrupt', 'rollback', 'enqueue']).optional(),
  on_run_completed: z.enum(['delete', 'keep']).optional(),
  if_not_exists: z.enum(['create', 'reject']).optional(),
  interrupt_before: z.unknown().optional(),
  interrupt_after: z.unknown().optional(),
  checkpoint_during: z.boolean().optional(),
  durability: z.enum(['sync', 'async', 'exit']).optional(),
  enabled: z.boolean().optional(),
});
export type CronCreate = z.infer<typeof CronCreateSchema>;

export const CronUpdateSchema = CronCreateSchema.omit({ assistant_id: true, if_not_exists: true })
  .partial()
  .strict();
export type CronUpdate = z.infer<typeof CronUpdateSchema>;

export const CronSearchSchema = z.object({
  assistant_id: z.string().min(1).optional(),
  thread_id: z.string().uuid('thread_id must be a UUID').optional(),
  enabled: z.boolean().optional(),
  limit: z.number().int().min(1).max(1000).default(10),
  offset: z.number().int().min(0).default(0),
  sort_by: z
    .enum(['cron_id', 'assistant_id', 'thread_id', 'next_run_date', 'end_time', 'created_at', 'updated_at'])
    .default('created_at'),
  sort_order: z.enum(['asc', 'desc']).default('desc'),
  select: z.array(z.string()).optional(),
});
export type CronSearch = z.infer<typeof CronSearchSchema>;
