import { z } from 'zod';
import { AgentConfigSchema } from '../agent.schema';

// The HTTP shapes of /v1/agents (docs/api.md), shared by the gateway and @switchyard/client.

/** `POST /v1/agents`: the agent's configuration (published as version 1). */
export const CreateAgentSchema = AgentConfigSchema;
/** `PATCH /v1/agents/:id`: fields of the draft to replace. */
export const PatchAgentSchema = AgentConfigSchema.partial().strict();

/** An agent's configuration as the API shows it: a graph agent's `dsl` as an object. */
export const ShownAgentConfigSchema = AgentConfigSchema.extend({
  dsl: z.record(z.string(), z.unknown()).optional(),
}).catchall(z.unknown());

/** An agent as `GET /v1/agents`, `GET /v1/agents/:id` and `PATCH /v1/agents/:id` show it. */
export const AgentViewSchema = z.object({
  id: z.string().uuid(),
  name: z.string(),
  // The configuration being edited (`kind`, a graph agent's `dsl`, prompt, tools, models…).
  draft: ShownAgentConfigSchema,
  // The latest published version's id and number.
  version: z.string().uuid().nullable(),
  version_number: z.number().int().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});

/** The answer to `POST /v1/agents`: its configuration (as shown), with version 1 published. */
export const CreatedAgentSchema = ShownAgentConfigSchema.extend({
  id: z.string().uuid(),
  version: z.string().uuid(),
  version_number: z.literal(1),
  created_at: z.string(),
});

/** A published version (`POST /v1/agents/:id/versions`). */
export const AgentVersionSchema = z.object({
  id: z.string().uuid(),
  agent_id: z.string().uuid(),
  version: z.number().int(),
  config: ShownAgentConfigSchema,
  created_at: z.string(),
});
/** `GET /v1/agents/:id/versions`: the published versions, oldest first. */
export const AgentVersionListSchema = z.object({ versions: z.array(AgentVersionSchema) });

/** The answer to `DELETE /v1/agents/:id` (its runs stay readable). */
export const DeletedAgentSchema = z.object({ id: z.string().uuid(), deleted: z.literal(true) });
export type ShownAgentConfig = z.infer<typeof ShownAgentConfigSchema>;
export type AgentView = z.infer<typeof AgentViewSchema>;
export type AgentVersionView = z.infer<typeof AgentVersionSchema>;
export type AgentVersionList = z.infer<typeof AgentVersionListSchema>;
export type DeletedAgentView = z.infer<typeof DeletedAgentSchema>;
