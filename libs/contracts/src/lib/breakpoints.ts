import { z } from 'zod';
import { ORCHESTRATOR_NODES } from './fork';
import { GRAPH_NODE_PREFIX } from './graph-agent';

/**
 * Static breakpoints (LangGraph's `interrupt_before` / `interrupt_after`): a run stops before a
 * step that would run one of `before`, or after a step in which one of `after` ran, with what was
 * to run still pending at the thread's head; a run with no input goes on from there. `"*"` is
 * every node; `tools` (default agent) every tool node the planner may call.
 */
export const BreakpointNodesSchema = z.union([
  z.literal('*'),
  // As a request names them: a default-agent node, `tools`, or a graph agent's component id.
  z.array(z.string().min(1).max(200)).max(100),
]);
export const BreakpointsSchema = z
  .object({ before: BreakpointNodesSchema.optional(), after: BreakpointNodesSchema.optional() })
  .strict();
export type Breakpoints = z.infer<typeof BreakpointsSchema>;
export type BreakpointNodes = z.infer<typeof BreakpointNodesSchema>;

/** The default agent's own nodes: any other node a default agent runs is one of its tools. */
export const DEFAULT_AGENT_NODES = [
  'intake',
  'preprocess',
  'memory',
  'planner',
  'reflection',
  'ask_user',
  'output',
  'archive',
] as const;

/** The name that stands for every tool node (in breakpoints, `as_node` and the drawn graph). */
export const TOOLS_NODE = 'tools';

/** Whether `node` is one of the breakpoint's nodes. */
export function breaksAt(nodes: BreakpointNodes | undefined, node: string): boolean {
  if (!nodes || ORCHESTRATOR_NODES.includes(node)) {
    return false;
  }
  if (nodes === '*' || nodes.includes(node)) {
    return true;
  }
  return (
    nodes.includes(TOOLS_NODE) &&
    !(DEFAULT_AGENT_NODES as readonly string[]).includes(node) &&
    !node.startsWith(`${GRAPH_NODE_PREFIX}.`)
  );
}

/** Where a run stopped at a breakpoint (its output `breakpoint`). */
export interface BreakpointStop {
  /** `before`: the step's nodes did not run; `after`: these ran and their successors did not. */
  when: 'before' | 'after';
  /** The breakpoint's nodes that stopped it. */
  nodes: string[];
  /** What is pending at the thread's head (what a run with no input runs next). */
  next: string[];
}
