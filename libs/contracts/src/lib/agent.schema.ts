import { z } from 'zod';
import { TaskTimeoutMsSchema } from './node-registry.schema';
import { NodeNameSchema } from './state.schema';

/** An agent's configuration: what a run of it pins when it starts. */
export const AgentConfigSchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    system_prompt: z.string().max(20_000).optional(),
    models: z
      .object({
        intake: z.string().optional(),
        planner: z.string().optional(),
        reflection: z.string().optional(),
        output: z.string().optional(),
        title: z.string().optional(),
      })
      .strict()
      .optional(),
    // The tools the planner may offer; absent = every registered tool.
    tools: z.array(NodeNameSchema).max(200).optional(),
    max_steps: z.number().int().min(1).max(10_000).default(50),
    output_tools: z.array(NodeNameSchema).max(20).optional(),
    // "graph": the agent is a RAGFlow canvas (`dsl`) run component by component; absent = the
    // default agent loop. The gateway validates the DSL (libs/graph) before storing it.
    kind: z.enum(['default', 'graph']).optional(),
    // Stored as JSON text: jsonb does not keep object key order, and a canvas's order matters
    // (Categorize's categories: prompt order, ties, the fallback). The API shows it as an object.
    dsl: z.union([z.record(z.string(), z.unknown()), z.string()]).optional(),
    // A task's deadline per node of this agent, in ms: past it without the node's delta, the task
    // counts as lost and is dispatched again. Over the node's own default (what it registered)
    // and SWITCHYARD_TASK_TIMEOUT_MS; the gateway refuses a node the agent cannot run.
    node_timeouts_ms: z
      .record(NodeNameSchema, TaskTimeoutMsSchema)
      .refine((m) => Object.keys(m).length <= 100, { message: 'at most 100 nodes' })
      .optional(),
  })
  .strict();
export type AgentConfig = z.infer<typeof AgentConfigSchema>;

/** The built-in agent every tenant has. */
export const DEFAULT_AGENT_ID = 'default';
