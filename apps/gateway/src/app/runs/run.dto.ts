import { z } from 'zod';
import {
  BreakpointsSchema,
  BusinessIdSchema,
  ChatMessageSchema,
  OriginFileSchema,
  UserIdSchema,
  type RunPriority,
  RunPrioritySchema as RunPriorities,
  RunStatusSchema,
} from '@switchyard/contracts';

export type { RunPriority } from '@switchyard/contracts';
/** runs.priority: within a tenant, batch runs' tasks yield to its interactive runs' tasks at every node. */
export const DEFAULT_RUN_PRIORITY: RunPriority = 'interactive';
export const RunPrioritySchema = z
  .enum(RunPriorities.options, { message: 'priority must be "interactive" or "batch"' })
  .describe(
    "interactive (default) or batch: at every node service a batch run's tasks wait while the same tenant's interactive runs have tasks waiting",
  );

export const CreateRunSchema = z
  .object({
    input: z
      .object({
        prompt: z.string().min(1).max(100_000),
        files: z.array(OriginFileSchema).max(100).optional(),
        // Graph agents: the Begin component's form (`{field: value | {value}}`), or a PuppyEngine
        // workflow's blocks by id or label.
        inputs: z.record(z.string(), z.unknown()).optional(),
      })
      .strict(),
    // Earlier messages of a conversation kept elsewhere (the OpenAI-compatible endpoint).
    history: z.array(ChatMessageSchema).max(1000).optional(),
    thread_id: z.string().uuid().optional(),
    agent_id: z.string().min(1).max(128).default('default'),
    agent_version: z.string().min(1).max(128).optional(),
    request_id: z.string().min(1).max(128).optional(),
    multitask: z.enum(['reject', 'enqueue', 'interrupt']).default('reject'),
    // Absent = interactive (left optional so the other surfaces' runs need not name it).
    priority: RunPrioritySchema.optional(),
    // Static breakpoints: the run stops before / after these nodes (resolveBreakpoints checks them).
    breakpoints: BreakpointsSchema.optional(),
    // A delayed run: queued (cancellable) until this many seconds after its creation.
    after_seconds: z.number().min(0).max(2_592_000, 'after_seconds: at most 30 days').optional(),
    // Echoed back on the run; `user_id` names the user whose profile becomes the thread's user_context;
    // `business_id` names the tenant's business the run serves (its model keys and metering).
    metadata: z
      .record(z.string(), z.unknown())
      .superRefine((m, ctx) => {
        if (m['user_id'] !== undefined && !UserIdSchema.safeParse(m['user_id']).success) {
          ctx.addIssue({
            code: 'custom',
            path: ['user_id'],
            message: 'user_id must be a non-empty string of at most 200 characters',
          });
        }
        if (m['business_id'] !== undefined && !BusinessIdSchema.safeParse(m['business_id']).success) {
          ctx.addIssue({
            code: 'custom',
            path: ['business_id'],
            message: 'business_id must be a non-empty string of at most 200 characters',
          });
        }
      })
      .default({}),
  })
  .strict();
export type CreateRunBody = z.infer<typeof CreateRunSchema>;

export const RunIdSchema = z.string().uuid();

/** `after_seq`: a Redis Stream id (`<ms>-<n>`) or an integer count of events already seen. */
export const CursorSchema = z
  .string()
  .regex(/^(\d+|\d+-\d+)$/, 'must be an event id like 1700000000000-3 or an integer count')
  .optional();

/** `GET /v1/runs/:id/events?format=`: Switchyard's own events, or RAGFlow's stream vocabulary. */
export const StreamFormatSchema = z
  .enum(['switchyard', 'ragflow'], { message: 'format must be "switchyard" or "ragflow"' })
  .optional();

/** `POST /v1/runs/:id/resume`: the answer; its shape is checked against the question's input schema. */
export const ResumeSchema = z
  .object({ input: z.unknown().refine((v) => v !== undefined, 'required') })
  .strict();

/**
 * `GET /v1/runs`: the tenant's runs, newest first, filtered by status (comma-separated), agent,
 * thread and creation time; `cursor` is the `next_cursor` of the previous page.
 */
export const ListRunsQuerySchema = z
  .object({
    status: z
      .string()
      .transform((s) =>
        s
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean),
      )
      .pipe(z.array(RunStatusSchema).min(1))
      .optional(),
    agent_id: z.string().min(1).max(200).optional(),
    thread_id: z.string().uuid().optional(),
    since: z.string().datetime({ offset: true }).optional(),
    until: z.string().datetime({ offset: true }).optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
    cursor: z
      .string()
      .regex(/^[0-9]+_[0-9a-f-]{36}$/, 'must be the next_cursor of a previous page')
      .optional(),
  })
  .strict();
export type ListRunsQuery = z.infer<typeof ListRunsQuerySchema>;
