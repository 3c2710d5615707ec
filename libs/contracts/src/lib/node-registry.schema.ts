import { z } from 'zod';
import { NodeNameSchema } from './state.schema';

/** An entry of the `sy_nodes` KV bucket: who serves a node, and what a planner needs to call it. */
export const NodeRegistrationSchema = z.object({
  name: NodeNameSchema,
  service: z.string().min(1),
  kind: z.enum(['service', 'human']),
  // Offered to the planner as a tool when true.
  tool: z.boolean(),
  description: z.string(),
  input_schema: z.record(z.string(), z.unknown()),
  idempotent: z.boolean(),
  registered_at: z.string().datetime(),
  // Set on a tenant's own nodes (its MCP servers' tools): offered to and listed for that tenant only.
  tenant_id: z.string().uuid().optional(),
});
export type NodeRegistration = z.infer<typeof NodeRegistrationSchema>;
