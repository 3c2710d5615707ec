import {
  type AgentConfig,
  type BreakpointNodes,
  type Breakpoints,
  DEFAULT_AGENT_NODES,
  NodeNameSchema,
  TOOLS_NODE,
  graphNodeName,
} from '@switchyard/contracts';
import { validateGraphDsl } from '@switchyard/graph';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { dslObject } from '../agents/agent-config.validator';

/**
 * A run's breakpoints checked against its agent and named as its `next` names nodes: a graph
 * agent's component ids become `graph.<id>`; a default agent's nodes are its own (intake … archive),
 * `tools` (every tool node), or a tool some service registered. A name that is none of these is
 * refused (400 naming it): a breakpoint that could never stop must not be accepted.
 */
export async function resolveBreakpoints(
  config: AgentConfig,
  breakpoints: Breakpoints,
  registered: (node: string) => Promise<boolean>,
): Promise<Breakpoints> {
  const problems: { field: string; message: string }[] = [];
  let resolve: (name: string) => Promise<string>;
  if (config.kind === 'graph' && config.dsl !== undefined) {
    const dsl = validateGraphDsl(dslObject(config.dsl));
    const ids = Object.keys(dsl.kind === 'ragflow' ? dsl.canvas.components : dsl.workflow.edges);
    resolve = (name) => {
      if (ids.includes(name)) {
        return Promise.resolve(graphNodeName(name));
      }
      throw new Error(
        `"${name}" is not ${dsl.kind === 'ragflow' ? 'a component of the canvas' : 'an edge of the workflow'} (${ids.slice(0, 12).join(', ')}${ids.length > 12 ? ', …' : ''})`,
      );
    };
  } else {
    resolve = async (name) => {
      const own = [...DEFAULT_AGENT_NODES, TOOLS_NODE] as string[];
      if (own.includes(name) || (NodeNameSchema.safeParse(name).success && (await registered(name)))) {
        return name;
      }
      throw new Error(
        `"${name}" is not a node of the agent (${own.join(', ')}, or a tool some service registered)`,
      );
    };
  }
  const out: Breakpoints = {};
  for (const when of ['before', 'after'] as const) {
    const nodes: BreakpointNodes | undefined = breakpoints[when];
    if (nodes === undefined || nodes === '*') {
      if (nodes) {
        out[when] = nodes;
      }
      continue;
    }
    const named: string[] = [];
    for (const [i, name] of nodes.entries()) {
      try {
        named.push(await resolve(name));
      } catch (err) {
        problems.push({ field: `breakpoints.${when}[${i}]`, message: (err as Error).message });
      }
    }
    if (named.length) {
      out[when] = [...new Set(named)];
    }
  }
  if (problems.length) {
    throw new ApiException(
      ApiErrorCode.InvalidRequest,
      `${problems[0].field}: ${problems[0].message}`,
      problems,
    );
  }
  return out;
}
