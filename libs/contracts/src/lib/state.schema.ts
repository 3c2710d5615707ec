import { describeZodError } from './zod-error.util';
import { z } from 'zod';
import { GraphStateSchema } from './graph-agent';
import type { RunError } from './run-errors';

// The run state of DESIGN.md §2 (seed 003): thread-level, one entry per turn in the per-turn lists.

export const UsageSchema = z
  .object({
    prompt_tokens: z.number().int().nonnegative(),
    completion_tokens: z.number().int().nonnegative(),
    total_tokens: z.number().int().nonnegative(),
  })
  .strict();
export type Usage = z.infer<typeof UsageSchema>;

export const ZERO_USAGE: Usage = Object.freeze({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });

export const MappingSchema = z.object({
  provider: z.string().min(1),
  path: z.string(),
  public: z.string().optional(),
});

export const ActionContextSchema = z.object({
  type: z.enum(['text', 'image', 'data']),
  content: z.unknown(),
  important: z.boolean(),
  usage_type: z.enum(['refactor', 'modify', 'reference', 'analysis', 'output']),
  mapping: MappingSchema.optional(),
});

/**
 * An action's error as it travels. `code` stays any string on the wire: an older or newer service
 * may send a code this build's catalogue (run-errors.ts) lacks. Producers here build a `RunError`,
 * whose code is a catalogue code unless passed through with `uncheckedRunErrorCode`.
 */
export const ActionErrorSchema = z.object({ code: z.string().min(1), message: z.string().min(1) });
export type ActionError = z.infer<typeof ActionErrorSchema>;

/** Node names are lower-case identifiers; dots namespace MCP tools (`mcp.<server>.<tool>`). */
export const NodeNameSchema = z
  .string()
  .regex(/^[a-z][a-z0-9_-]*(\.[a-z0-9_-]+)*$/, 'node names are lower-case identifiers');

export const ActionSchema = z
  .object({
    id: z.number().int().positive(),
    node: NodeNameSchema,
    preparation: z.string(),
    summary: z.string(),
    result: z.unknown(),
    context: z.array(ActionContextSchema).optional(),
    relevance: z.number().min(0).max(1).optional(),
    usage: UsageSchema,
    next: z.array(NodeNameSchema),
    error: ActionErrorSchema.optional(),
    started_at: z.string().datetime(),
    finished_at: z.string().datetime(),
    attempt: z.number().int().positive(),
  })
  .strict();
export type Action = z.infer<typeof ActionSchema>;

export const MemoryItemSchema = z.object({
  thread_id: z.string(),
  /** The run (turn) the item comes from, when it is known (user memory across threads). */
  run_id: z.string().optional(),
  turn: z.number().int().nonnegative(),
  content: z.string(),
  score: z.number(),
});
export type MemoryItem = z.infer<typeof MemoryItemSchema>;

/** One failed attempt of a todo (seed 003 `error_history`). */
export const TodoErrorSchema = z.object({
  timestamp: z.string(), // ISO
  attempt: z.number().int(), // 1-based attempt that failed (0: the todo never ran, e.g. a blocked dependency)
  tool_used: z.string(),
  error: z.string(), // "<code>: <message>"
  retry_count: z.number().int(), // todo.retry after this failure
  execution_time: z.number(), // seconds
});
export type TodoError = z.infer<typeof TodoErrorSchema>;

export const TodoStatusSchema = z.enum(['pending', 'processing', 'completed', 'failed']);
export type TodoStatus = z.infer<typeof TodoStatusSchema>;

/** A todo of the turn (seed 003 shape); the planner keeps `todos[turn]`, reflection settles attempts. */
export const TodoSchema = z.object({
  id: z.string().min(1),
  task: z.string(),
  status: TodoStatusSchema,
  dependencies: z.array(z.string()).default([]),
  suggested_tools: z.array(z.string()).default([]),
  priority: z.number().int().default(5), // larger = sooner
  // Every field of seed 003's todo is always there: empty where nothing is known.
  execution_tips: z.string().default(''),
  success_criteria: z.string().default(''),
  critical_path_length: z.number().int().nonnegative().default(0), // longest chain of dependents
  retry: z.number().int().nonnegative().default(0),
  max_retry: z.number().int().nonnegative().default(3), // retries after the first attempt: 3 => at most 4 attempts
  retry_after: z.string().nullable().default(null), // ISO time before which it must not be dispatched
  error_history: z.array(TodoErrorSchema).default([]),
  completion_details: z
    .object({
      completed_at: z.string(),
      tool_used: z.string(),
      execution_time: z.number(),
      output: z.unknown(),
    })
    .nullable()
    .default(null),
  call_ids: z.array(z.string()).default([]), // extension: the tool-call ids filed under this todo
});
export type Todo = z.infer<typeof TodoSchema>;

export const OriginFileSchema = z.object({
  name: z.string().min(1),
  type: z.string().min(1),
  local_path: z.string().optional(),
  /** A file the tenant uploaded (`POST /v1/files`), read from the deployment's file store. */
  file_id: z.string().uuid().optional(),
  mapping: z
    .object({
      provider: z.enum(['aliyun', 'tencent', 'aws', 'gcs', 'local']),
      path: z.string(),
      public: z.string().optional(),
    })
    .optional(),
});
export type OriginFile = z.infer<typeof OriginFileSchema>;

const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/**
 * Where an object store mapping (`provider` other than `local`) points: its `path` is
 * `<bucket>/<key>`, the bucket named as S3 names them (3–63 lower-case letters, digits, dots and
 * hyphens). A path that is not is a `problem` to refuse the run with.
 */
export function objectLocationOf(path: string): { bucket: string; key: string } | { problem: string } {
  const slash = path.indexOf('/');
  const bucket = slash < 0 ? path : path.slice(0, slash);
  const key = slash < 0 ? '' : path.slice(slash + 1);
  if (!BUCKET.test(bucket)) {
    return { problem: `"${path}" does not start with a bucket name (the path is <bucket>/<key>)` };
  }
  if (key === '' || key.includes('\0')) {
    return { problem: `"${path}" names no object in bucket ${bucket} (the path is <bucket>/<key>)` };
  }
  return { bucket, key };
}

export const ChatMessageSchema = z.object({
  role: z.enum(['user', 'assistant', 'system']),
  content: z.string(),
});
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

export const RuntimeStateSchema = z
  .object({
    thread_id: z.string().uuid(),
    run_id: z.string().uuid(),
    turn: z.number().int().nonnegative(),
    version: z.number().int().nonnegative(),
    prompts: z.array(z.string()),
    user_context: z.record(z.string(), z.unknown()),
    memory: z.array(MemoryItemSchema),
    output_style: z.string(),
    scenario: z.string(),
    output_structure: z.array(
      z.object({ id: z.string(), expected: z.string(), content: z.unknown(), type: z.string() }),
    ),
    task_goals: z.array(z.string()),
    origin_files: z.array(OriginFileSchema),
    preprocessed_files: z.object({
      documents: z.record(z.string(), z.unknown()),
      tables: z.record(z.string(), z.unknown()),
      other_files: z.record(z.string(), z.unknown()),
    }),
    todos: z.array(z.array(TodoSchema)),
    action_history: z.array(z.array(ActionSchema)),
    chat_history: z.array(ChatMessageSchema),
    usage: z.array(UsageSchema),
    // Graph agents only: the canvas variables and component outputs (graph-agent.ts).
    graph: GraphStateSchema.optional(),
  })
  .strict();
export type RuntimeState = z.infer<typeof RuntimeStateSchema>;

/** RFC 6902 operation (the subset nodes may send: no `copy`/`move` across the allow-list). */
export const JsonPatchOperationSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('add'), path: z.string(), value: z.unknown() }),
  z.object({ op: z.literal('replace'), path: z.string(), value: z.unknown() }),
  z.object({ op: z.literal('remove'), path: z.string() }),
  z.object({ op: z.literal('test'), path: z.string(), value: z.unknown() }),
]);
export type JsonPatchOperation = z.infer<typeof JsonPatchOperationSchema>;

/** What a node returns: its action (the orchestrator assigns the id) and an optional patch. */
export const StateDeltaSchema = z
  .object({
    action: ActionSchema.omit({ id: true }),
    patch: z.array(JsonPatchOperationSchema).optional(),
  })
  .strict();
export type StateDelta = z.infer<typeof StateDeltaSchema>;
export type ActionDraft = StateDelta['action'];

/** What a node's code answers: its action but for the id, node, timing and attempt, and its patch. */
export interface NodeAnswer {
  preparation?: string;
  summary: string;
  result: unknown;
  next: string[];
  usage?: Usage;
  patch?: JsonPatchOperation[];
  context?: Action['context'];
  relevance?: number;
  error?: RunError;
}

/**
 * The delta of node `node`'s answer, as it is sent on. An answer that is not a valid delta becomes
 * the same action with no result, no successors and an `invalid_delta` error naming what is wrong —
 * a node's bug surfaces as a failed run with a clear message, never as a poison delta.
 */
export function nodeDelta(
  node: string,
  out: NodeAnswer,
  run: { startedAt: string; attempt: number },
): StateDelta {
  const delta = {
    action: {
      node,
      preparation: out.preparation ?? '',
      summary: out.summary,
      result: out.result ?? null,
      ...(out.context ? { context: out.context } : {}),
      ...(out.relevance !== undefined ? { relevance: out.relevance } : {}),
      usage: out.usage ?? { ...ZERO_USAGE },
      next: out.next,
      ...(out.error ? { error: out.error } : {}),
      started_at: run.startedAt,
      finished_at: new Date().toISOString(),
      attempt: run.attempt,
    },
    ...(out.patch?.length ? { patch: out.patch } : {}),
  };
  const checked = StateDeltaSchema.safeParse(delta);
  if (checked.success) {
    return checked.data;
  }
  return {
    action: {
      ...(delta.action as ActionDraft),
      result: null,
      next: [],
      error: {
        code: 'invalid_delta',
        message: `node produced an invalid delta: ${describeZodError(checked.error)}`,
      },
    },
  };
}

/** A delta as committed: the action carries the id the orchestrator gave it. */
export const CommittedDeltaSchema = z
  .object({ action: ActionSchema, patch: z.array(JsonPatchOperationSchema).optional() })
  .strict();
export type CommittedDelta = z.infer<typeof CommittedDeltaSchema>;
