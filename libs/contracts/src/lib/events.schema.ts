import { z } from 'zod';

// Run events (DESIGN.md §5), kept in a Redis Stream per run.

export const RUN_STATUSES = ['queued', 'running', 'waiting', 'succeeded', 'failed', 'cancelled'] as const;
export const RunStatusSchema = z.enum(RUN_STATUSES);
export type RunStatus = z.infer<typeof RunStatusSchema>;
export const TERMINAL_STATUSES: readonly RunStatus[] = ['succeeded', 'failed', 'cancelled'];
export const isTerminal = (s: RunStatus): boolean => TERMINAL_STATUSES.includes(s);

export const EVENT_TYPES = [
  'status',
  'node_started',
  'action',
  'token',
  'waiting_for_user',
  'error',
  'done',
] as const;
export const EventTypeSchema = z.enum(EVENT_TYPES);
export type EventType = z.infer<typeof EventTypeSchema>;

const UsageLike = z.object({
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  total_tokens: z.number(),
});

/** One node-service instance's answer to a cancel: the run's tasks it aborted. */
export const CancelAckSchema = z.object({
  run_id: z.string(),
  service: z.string(),
  instance: z.string(),
  aborted: z.array(z.object({ task_id: z.string(), node: z.string() })),
});
export type CancelAck = z.infer<typeof CancelAckSchema>;

/**
 * How a cancel was acknowledged: `pending` are the run's tasks not finished when it was cancelled
 * (with the service that serves each); `acks` what each answering instance aborted; `complete`
 * whether every service of a pending task answered within the wait (a task still queued is
 * stopped by the fence when it is pulled); `acknowledged_at` when the last answer came.
 */
export const CancelAcksSchema = z.object({
  pending: z.array(z.object({ task_id: z.string(), node: z.string(), service: z.string().nullable() })),
  acks: z.array(CancelAckSchema.omit({ run_id: true })),
  complete: z.boolean(),
  acknowledged_at: z.string().nullable(),
});
export type CancelAcks = z.infer<typeof CancelAcksSchema>;

export const EventPayloadSchemas = {
  // A cancelled run's status event says which services acknowledged the cancel (see CancelAcks).
  status: z.object({ status: RunStatusSchema, cancel: z.lazy(() => CancelAcksSchema).optional() }),
  node_started: z.object({ node: z.string(), task_id: z.string(), attempt: z.number() }),
  action: z.object({
    id: z.number(),
    node: z.string(),
    summary: z.string(),
    next: z.array(z.string()),
    usage: UsageLike,
    error: z.object({ code: z.string(), message: z.string() }).optional(),
    // What a graph component's action shows beside its tokens: a failed component's default value
    // under its exception policy, and the files a Message offers (a DocGenerator's document).
    message: z.string().optional(),
    downloads: z.array(z.record(z.string(), z.unknown())).optional(),
  }),
  // `attempt`: tokens of a higher attempt of the same task replace the earlier attempt's text.
  token: z.object({
    node: z.string(),
    task_id: z.string(),
    attempt: z.number().int().min(1).optional(),
    text: z.string(),
  }),
  // `tool_calls`: the client functions the run waits for (see CLIENT_TOOL), when it waits for those.
  waiting_for_user: z.object({
    question: z.string(),
    input_schema: z.unknown(),
    tool_calls: z
      .array(z.object({ id: z.string(), name: z.string(), arguments: z.record(z.string(), z.unknown()) }))
      .optional(),
  }),
  error: z.object({ code: z.string(), message: z.string(), node: z.string().optional() }),
  done: z.object({ status: RunStatusSchema }),
} satisfies Record<EventType, z.ZodType>;

export type EventPayload<T extends EventType> = z.infer<(typeof EventPayloadSchemas)[T]>;

/** Compares run event seqs (Redis Stream ids, `<ms>-<n>`): negative when `a` came first. */
export function compareSeq(a: string, b: string): number {
  const [am, an] = a.split('-').map(Number);
  const [bm, bn] = b.split('-').map(Number);
  return am !== bm ? am - bm : an - bn;
}

export interface RunEvent<T extends EventType = EventType> {
  run_id: string;
  seq: string;
  event_type: T;
  payload: EventPayload<T>;
  ts: number;
}

/** The payload of the `action` event of a committed action (the orchestrator's and the rebuilt one). */
export function actionEventPayload(a: {
  id: number;
  node: string;
  summary: string;
  next: string[];
  usage: EventPayload<'action'>['usage'];
  error?: { code: string; message: string };
  result?: unknown;
}): EventPayload<'action'> {
  const shown = (a.result ?? {}) as { message?: unknown; outputs?: { downloads?: unknown } };
  const downloads = shown.outputs?.downloads;
  return {
    id: a.id,
    node: a.node,
    summary: a.summary,
    next: a.next,
    usage: a.usage,
    ...(a.error ? { error: a.error } : {}),
    ...(typeof shown.message === 'string' ? { message: shown.message } : {}),
    ...(Array.isArray(downloads) && downloads.length
      ? { downloads: downloads as Record<string, unknown>[] }
      : {}),
  };
}

/** The `waiting_for_user` payload of what a waiting run waits for (`runs.waiting`). */
export function waitingForUserPayload(waiting: {
  question: string;
  input_schema: unknown;
  client_calls?: { id: string; name: string; arguments: Record<string, unknown> }[];
}): EventPayload<'waiting_for_user'> {
  return {
    question: waiting.question,
    input_schema: waiting.input_schema,
    ...(waiting.client_calls
      ? { tool_calls: waiting.client_calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })) }
      : {}),
  };
}
