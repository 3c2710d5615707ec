import type { VariableScope } from '@switchyard/graph';

/**
 * The seam between an Agent component's tool-calling loop and the tools it may offer the model.
 *
 * A canvas Agent lists its tools as `params.tools[] {component_name, name, params}` (RAGFlow's
 * shape). For each entry the Agent asks the factory registered under that `component_name`
 * for a {@link GraphTool}; the model is offered the tool's `name`, `description` and JSON-Schema
 * `parameters`, and a call the model makes runs `call` and answers with its text.
 */
export interface GraphToolContext {
  tenantId: string;
  runId: string;
  /** The Agent component that offers the tool. */
  componentId: string;
  signal: AbortSignal;
  /** The canvas's variables and outputs, for a tool whose entry refers to them (CodeExec's arguments). */
  scope: VariableScope;
}

export interface GraphTool {
  /** The function name the model sees (RAGFlow indexes repeats: `search_my_dateset_0`). */
  name: string;
  description: string;
  /** JSON Schema of the call's arguments (an object schema). */
  parameters: Record<string, unknown>;
  call(args: Record<string, unknown>, ctx: GraphToolContext): Promise<string>;
}

/** Builds the tools of one `component_name` from an Agent's `tools[]` entry. */
export interface GraphToolFactory {
  /** RAGFlow's `component_name` of the tool entry, e.g. `TavilySearch`, `YahooFinance`. */
  readonly componentName: string;
  create(entry: { name?: string; params: Record<string, unknown> }, index: number): GraphTool;
}

/** Nest multi-provider token: every factory the planner knows. */
export const GRAPH_TOOL_FACTORIES = Symbol('GRAPH_TOOL_FACTORIES');
