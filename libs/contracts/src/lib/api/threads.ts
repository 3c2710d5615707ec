import { z } from 'zod';
import { StateEditSchema } from '../fork';
import { RuntimeStateSchema } from '../state.schema';
import { CreateRunSchema, CreatedRunSchema, PageQueryShape } from './runs';

// The HTTP shapes of /v1/threads (docs/api.md), shared by the gateway and @switchyard/client.

/** `GET /v1/threads`: the tenant's threads, newest first (keyset pages, as `GET /v1/runs`). */
export const ListThreadsQuerySchema = z
  .object({
    agent_id: z.string().min(1).max(200).optional(),
    ...PageQueryShape,
  })
  .strict();

/** A thread as `GET /v1/threads/:id` shows it. */
export const ThreadViewSchema = z.object({
  thread_id: z.string().uuid(),
  agent_id: z.string(),
  created_at: z.string(),
  // Runs started on it.
  turns: z.number().int(),
  version: z.number().int(),
  // The run under way (queued, running or waiting), if any.
  active_run_id: z.string().uuid().nullable(),
  // Made from the first turn (null until then).
  title: z.string().nullable(),
});

/** `GET /v1/threads`: a page of threads; `next_cursor` is null on the last page. */
export const ThreadPageSchema = z.object({
  threads: z.array(ThreadViewSchema),
  next_cursor: z.string().nullable(),
});

/** `GET /v1/threads/:id/state`: the RuntimeState itself. */
export const ThreadStateSchema = RuntimeStateSchema;

/** One version of a thread (`GET /v1/threads/:id/versions`): the step that wrote it. */
export const ThreadVersionSchema = z.object({
  version: z.number().int(),
  run_id: z.string().nullable(),
  node: z.string().nullable(),
  created_at: z.string(),
  // A fork's first version: the version its branch started from.
  from_version: z.number().int().optional(),
  // The first version of a compacted history (its run and node are gone with the versions before it).
  compacted: z.literal(true).optional(),
});

/** `POST /v1/threads/:id/fork`: branch the thread from a version (docs/api.md "Forks"). */
export const ForkRequestSchema = z
  .object({
    version: z.number().int().min(1),
    edits: z.array(StateEditSchema).max(100).default([]),
    // With input: a new turn from the fork point (which must end a turn).
    input: CreateRunSchema.shape.input.optional(),
    // Without input: run what was pending at the fork point (false: only record the branch).
    continue: z.boolean().default(true),
    agent_id: z.string().min(1).max(128).optional(),
    agent_version: CreateRunSchema.shape.agent_version,
    request_id: CreateRunSchema.shape.request_id,
    multitask: CreateRunSchema.shape.multitask,
    metadata: CreateRunSchema.shape.metadata,
    breakpoints: CreateRunSchema.shape.breakpoints,
  })
  .strict()
  .superRefine((b, ctx) => {
    if (b.breakpoints && !b.input && !b.continue) {
      ctx.addIssue({
        code: 'custom',
        path: ['breakpoints'],
        message: 'a fork that only records runs nothing to stop at',
      });
    }
    if (b.input && !b.continue) {
      ctx.addIssue({
        code: 'custom',
        path: ['continue'],
        message: 'a fork with input starts a turn: leave continue out',
      });
    }
    if (!b.input && (b.agent_id !== undefined || b.agent_version !== undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [b.agent_id !== undefined ? 'agent_id' : 'agent_version'],
        message: 'a fork without input continues the turn with the agent that ran it',
      });
    }
  });

/** The answer to a fork: the branch, where it left, and the run that goes on from there. */
export const ForkResponseSchema = z.object({
  thread_id: z.string().uuid(),
  from_version: z.number().int(),
  pending: z.array(z.string()),
  run: CreatedRunSchema,
});
export type ThreadView = z.infer<typeof ThreadViewSchema>;
