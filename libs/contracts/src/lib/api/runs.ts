import { z } from 'zod';
import { BreakpointsSchema } from '../breakpoints';
import { RunStatusSchema } from '../events.schema';
import { RunPrioritySchema } from '../messages.schema';
import { ChatMessageSchema, OriginFileSchema, UsageSchema } from '../state.schema';
import { BusinessIdSchema, UserIdSchema } from '../user-context';

// The HTTP shapes of /v1/runs (docs/api.md): the gateway validates and answers with them, its
// OpenAPI document renders them, and @switchyard/client's types are derived from them.

/** A run's `priority` field: within a tenant, batch runs' tasks yield to its interactive runs' tasks. */
export const RunPriorityFieldSchema = z
  .enum(RunPrioritySchema.options, { message: 'priority must be "interactive" or "batch"' })
  .describe(
    "interactive (default) or batch: at every node service a batch run's tasks wait while the same tenant's interactive runs have tasks waiting",
  );

/** `POST /v1/runs`. */
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
    // The idempotency key: the same id returns the same run.
    request_id: z.string().min(1).max(128).optional(),
    multitask: z.enum(['reject', 'enqueue', 'interrupt']).default('reject'),
    // Absent = interactive (left optional so the other surfaces' runs need not name it).
    priority: RunPriorityFieldSchema.optional(),
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

/** `POST /v1/runs/:id/resume`: the answer; its shape is checked against the question's input schema. */
export const ResumeSchema = z
  .object({ input: z.unknown().refine((v) => v !== undefined, 'required') })
  .strict();

/** The answer to `POST /v1/runs/:id/cancel`: 202 cancelling, or 200 cancelled when it already was. */
export const CancelledRunSchema = z.object({
  run_id: z.string().uuid(),
  status: z.enum(['cancelling', 'cancelled']),
});

/** The answer to `POST /v1/runs/:id/resume` (202): the run goes on. */
export const ResumedRunSchema = z.object({ run_id: z.string().uuid(), status: z.literal('resuming') });

/** The keyset paging of a list, newest first: creation-time bounds, page size, `next_cursor` of the previous page. */
export const PageQueryShape = {
  since: z.string().datetime({ offset: true }).optional(),
  until: z.string().datetime({ offset: true }).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z
    .string()
    .regex(/^[0-9]+_[0-9a-f-]{36}$/, 'must be the next_cursor of a previous page')
    .optional(),
};

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
    ...PageQueryShape,
  })
  .strict();

/** The answer to `POST /v1/runs` (and the run of a fork): queued. */
export const CreatedRunSchema = z.object({
  run_id: z.string().uuid(),
  thread_id: z.string().uuid(),
  status: RunStatusSchema,
  created_at: z.string(),
});

/** A run's `output`: the answer (with the thread's title and filled output structure), or a breakpoint's stop. */
export const RunOutputSchema = z
  .object({
    answer: z.string().optional(),
    title: z.string().optional(),
    // output_structured: the thread's output_structure with its contents filled; null when not chosen.
    structured: z
      .array(z.object({ id: z.string(), expected: z.string(), content: z.unknown(), type: z.string() }))
      .nullable()
      .optional(),
  })
  .catchall(z.unknown());

/** A run as `GET /v1/runs/:id`, `GET /v1/runs` and `GET /v1/threads/:id/runs` show it. */
export const RunViewSchema = z.object({
  run_id: z.string().uuid(),
  thread_id: z.string().uuid(),
  agent_id: z.string(),
  // The agent version the run pinned (null: the built-in agent, or a draft).
  agent_version_id: z.string().uuid().nullable(),
  turn: z.number().int().nullable(),
  status: RunStatusSchema,
  priority: RunPriorityFieldSchema,
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  steps: z.number().int(),
  // Not strict: the stored usage may carry more (the run's metered usage is summed from its model calls).
  usage: z.object(UsageSchema.shape),
  output: RunOutputSchema.nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  metadata: z.record(z.string(), z.unknown()),
});

/** `GET /v1/runs`: a page of runs; `next_cursor` is null on the last page. */
export const RunPageSchema = z.object({ runs: z.array(RunViewSchema), next_cursor: z.string().nullable() });
export type CreatedRunView = z.infer<typeof CreatedRunSchema>;
export type CancelledRunView = z.infer<typeof CancelledRunSchema>;
export type ResumedRunView = z.infer<typeof ResumedRunSchema>;
export type RunView = z.infer<typeof RunViewSchema>;
