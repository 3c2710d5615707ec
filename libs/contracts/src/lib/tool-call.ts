import { z } from 'zod';
import { GRAPH_NODE_PREFIX } from './graph-agent';
import type { RuntimeState } from './state.schema';

/** A tool call the planner made; its arguments are what the tool node reads. */
export const ToolCallSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  args: z.record(z.string(), z.unknown()),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

const GraphToolCallsSchema = z.object({ tool_calls: z.array(ToolCallSchema).min(1) });

/** The `result` of a planner action. */
export const PlannerResultSchema = z.object({
  content: z.string(),
  tool_calls: z.array(ToolCallSchema),
  /** The output tools the planner's final call chose (`output`, `output_structured`); absent = `['output']`. */
  output_tools: z.array(z.string()).optional(),
  /** How the turn is worked: `plan` = todos from an upfront plan, `adhoc` = tool calls become todos. */
  mode: z.enum(['plan', 'adhoc']).optional(),
});
export type PlannerResult = z.infer<typeof PlannerResultSchema>;

/**
 * The call a tool task answers: the `callIndex`-th call of `node` in the turn's latest planner
 * action (a fan-out of two `calculator` calls dispatches call_index 0 and 1).
 */
export function findToolCall(state: RuntimeState, node: string, callIndex: number): ToolCall | undefined {
  const actions = state.action_history[state.turn] ?? [];
  for (let i = actions.length - 1; i >= 0; i--) {
    if (actions[i].node === 'planner') {
      const parsed = PlannerResultSchema.safeParse(actions[i].result);
      return parsed.success ? parsed.data.tool_calls.filter((c) => c.name === node)[callIndex] : undefined;
    }
    // A graph agent's UserFillUp calls ask_user itself.
    if (actions[i].node.startsWith(`${GRAPH_NODE_PREFIX}.`)) {
      const parsed = GraphToolCallsSchema.safeParse(actions[i].result);
      if (parsed.success) {
        return parsed.data.tool_calls.filter((c) => c.name === node)[callIndex];
      }
    }
  }
  return undefined;
}

// OpenAI function names allow [a-zA-Z0-9_-]{1,64}; node names may hold dots (`mcp.<server>.<tool>`).
const FUNCTION_NAME_MAX = 64;

/**
 * The function name under which a node is offered to an LLM: dots become `__`, anything else
 * outside [a-zA-Z0-9_-] becomes `_`, and a name over 64 characters is cut and suffixed with a
 * hash of the whole name so two long names stay apart. Planner and reflection both present tool
 * calls to the model with it; the planner maps replies back through what it offered.
 */
export function toolFunctionName(node: string): string {
  const name = node.replace(/\./g, '__').replace(/[^a-zA-Z0-9_-]/g, '_');
  if (name.length <= FUNCTION_NAME_MAX) {
    return name;
  }
  let h = 2166136261;
  for (let i = 0; i < node.length; i++) {
    h = Math.imul(h ^ node.charCodeAt(i), 16777619) >>> 0;
  }
  const suffix = `_${h.toString(36)}`;
  return name.slice(0, FUNCTION_NAME_MAX - suffix.length) + suffix;
}
