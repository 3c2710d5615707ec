import { z } from 'zod';
import type { CreateRunSchema, ListRunsQuerySchema, RunPriority } from '@switchyard/contracts';

// The request schemas of /v1/runs live in @switchyard/contracts (src/lib/api), shared with the
// client library; here: the gateway's own parameters and the parsed bodies' types.

export type { RunPriority } from '@switchyard/contracts';
/** runs.priority: within a tenant, batch runs' tasks yield to its interactive runs' tasks at every node. */
export const DEFAULT_RUN_PRIORITY: RunPriority = 'interactive';

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

export type ListRunsQuery = z.infer<typeof ListRunsQuerySchema>;
