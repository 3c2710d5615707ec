import { z } from 'zod';
import type { RuntimeState } from './state.schema';

/** A tool call the planner made; its arguments are what the tool node reads. */
export const ToolCallSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  args: z.record(z.string(), z.unknown()),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

/** The `result` of a planner action. */
export const PlannerResultSchema = z.object({
  content: z.string(),
  tool_calls: z.array(ToolCallSchema),
  /** The output tools the planner's final call chose (`output`, `output_structured`); absent = `['output']`. */
  output_tools: z.array(z.string()).optional(),
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
  }
  return undefined;
}
