import { z } from 'zod';
import { NodeNameSchema } from './state.schema';

/**
 * Seed 003's tool types: a `call` tool is offered while the planner works on the request; an
 * `output` tool presents the answer and is offered only when the work is done. A tool has at
 * least one; both are allowed.
 */
export const ToolTypeSchema = z.enum(['call', 'output']);
export type ToolType = z.infer<typeof ToolTypeSchema>;
export const ToolTypesSchema = z
  .array(ToolTypeSchema)
  .min(1)
  .max(2)
  .refine((t) => new Set(t).size === t.length, { message: 'must not repeat a type' });

/** A task's deadline in ms, as a node declares it or an agent sets it: 1 s to 24 h. */
export const TaskTimeoutMsSchema = z.number().int().min(1000).max(86_400_000);

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
  // A tool's types; absent on entries written before types existed: a tool is then `call` only.
  types: ToolTypesSchema.optional(),
  // Set on a tenant's own nodes (its MCP servers' tools): offered to and listed for that tenant only.
  tenant_id: z.string().uuid().optional(),
  // The node's own task deadline, when its work needs another than SWITCHYARD_TASK_TIMEOUT_MS.
  timeout_ms: TaskTimeoutMsSchema.optional(),
});
export type NodeRegistration = z.infer<typeof NodeRegistrationSchema>;

/** A registration's tool types (none for a node that is not a tool). */
export function toolTypesOf(reg: Pick<NodeRegistration, 'tool' | 'types'>): readonly ToolType[] {
  if (!reg.tool) {
    return [];
  }
  return reg.types ?? ['call'];
}
