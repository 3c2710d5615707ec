import { z } from 'zod';
import { ToolTypeSchema } from '../node-registry.schema';

// The HTTP shape of /v1/tools (docs/api.md), shared by the gateway and @switchyard/client.

/** A tool as `GET /v1/tools` lists it: a node of the registry the planner can offer. */
export const ToolViewSchema = z.object({
  name: z.string(),
  description: z.string(),
  input_schema: z.record(z.string(), z.unknown()),
  service: z.string(),
  idempotent: z.boolean(),
  // Seed 003's types: `call` tools are offered during the work, `output` tools present the answer.
  types: z.array(ToolTypeSchema),
});

/** `GET /v1/tools`: the shared tools and the caller's own (its MCP servers' tools). */
export const ToolListSchema = z.object({ tools: z.array(ToolViewSchema) });
export type ToolView = z.infer<typeof ToolViewSchema>;
export type ToolList = z.infer<typeof ToolListSchema>;
