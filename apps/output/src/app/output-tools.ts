import { PlannerResultSchema, type RuntimeState } from '@switchyard/contracts';

/** The output tools this service serves inside the `output` node. */
export const OUTPUT_TOOLS = ['output', 'output_structured'] as const;
export type OutputToolName = (typeof OUTPUT_TOOLS)[number];

const isOutputTool = (name: string): name is OutputToolName =>
  (OUTPUT_TOOLS as readonly string[]).includes(name);

export interface OutputToolChoice {
  tools: OutputToolName[];
  /** What the planner asked for and was not served (unknown, or not allowed for the agent). */
  dropped: string[];
}

/** The output tools the turn's last planner action chose (`PlannerResult.output_tools`), if any. */
export function plannerChoice(state: Readonly<RuntimeState>): string[] | undefined {
  const actions = state.action_history[state.turn] ?? [];
  for (let i = actions.length - 1; i >= 0; i--) {
    if (actions[i].node === 'planner') {
      const parsed = PlannerResultSchema.safeParse(actions[i].result);
      return parsed.success ? parsed.data.output_tools : undefined;
    }
  }
  return undefined;
}

/**
 * The planner's choice (absent or empty = `['output']`) kept to the tools the agent allows
 * (`AgentConfig.output_tools`; absent = all). When nothing is left, the agent's first allowed
 * output tool serves, else `output`: a run always ends with some output.
 */
export function chooseOutputTools(
  chosen: readonly string[] | undefined,
  allowed: readonly string[] | undefined,
): OutputToolChoice {
  const requested = chosen?.length ? chosen : ['output'];
  const permitted = (name: string) => isOutputTool(name) && (allowed === undefined || allowed.includes(name));
  const tools = [...new Set(requested.filter(permitted))] as OutputToolName[];
  const dropped = requested.filter((name) => !permitted(name));
  if (tools.length === 0) {
    tools.push((allowed ?? []).find(isOutputTool) ?? 'output');
  }
  return { tools, dropped };
}
