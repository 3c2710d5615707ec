import {
  type AgentConfig,
  GRAPH_ENTRY_NODE,
  type ShownAgentConfig,
  componentIdOfNode,
} from '@switchyard/contracts';
import { GraphErrorCode, GraphException, describeProblems, validateGraphDsl } from '@switchyard/graph';
import { webToolProblems } from '@switchyard/provider-tools';
import type { NodeDirectory } from '@switchyard/platform';
import { ApiErrorCode, ApiException } from '../http/api.exception';

/**
 * What the body schema cannot check: a graph agent's DSL (any RAGFlow form, or a PuppyEngine
 * workflow as engine JSON or PuppyFlow editor JSON). Throws a 400 whose `details` name the
 * component (or edge/block) and field of every problem, so nothing invalid is ever stored.
 */
export function assertAgentConfig(config: AgentConfig): void {
  if (config.kind !== 'graph') {
    if (config.dsl !== undefined) {
      throw new ApiException(ApiErrorCode.InvalidRequest, 'the request is invalid', [
        { field: 'dsl', message: 'only a graph agent (kind "graph") has a dsl' },
      ]);
    }
    return;
  }
  if (config.dsl === undefined) {
    throw new ApiException(ApiErrorCode.InvalidRequest, 'the request is invalid', [
      { field: 'dsl', message: 'a graph agent needs its dsl' },
    ]);
  }
  try {
    const dsl = validateGraphDsl(dslObject(config.dsl));
    // What RAGFlow's web tools check when a canvas loads (libs/provider-tools): refused now.
    const problems = dsl.kind === 'ragflow' ? webToolProblems(dsl.canvas) : [];
    if (problems.length) {
      throw new GraphException(GraphErrorCode.MissingParam, describeProblems(problems), problems);
    }
  } catch (err) {
    if (err instanceof GraphException) {
      throw new ApiException(
        ApiErrorCode.InvalidRequest,
        `the graph DSL is invalid: ${err.message}`,
        err.problems.map((p) => ({
          field: [
            'dsl',
            p.component && `components.${p.component}`,
            p.edge && `edges.${p.edge}`,
            p.block && `blocks.${p.block}`,
            p.field,
          ]
            .filter(Boolean)
            .join('.'),
          component: p.component,
          ...(p.edge ? { edge: p.edge } : {}),
          ...(p.block ? { block: p.block } : {}),
          code: p.code,
          message: p.message,
        })),
      );
    }
    throw err;
  }
}

/** The DSL as an object (stored configurations hold it as JSON text, which keeps key order). */
export function dslObject(dsl: string | Record<string, unknown>): unknown {
  if (typeof dsl !== 'string') {
    return dsl;
  }
  try {
    return JSON.parse(dsl) as unknown;
  } catch {
    throw new ApiException(ApiErrorCode.InvalidRequest, 'the request is invalid', [
      { field: 'dsl', message: 'the dsl is not JSON' },
    ]);
  }
}

/** The configuration as stored: the DSL as JSON text, so its key order survives jsonb. */
export function storedConfig(config: AgentConfig): AgentConfig {
  return config.dsl !== undefined && typeof config.dsl !== 'string'
    ? { ...config, dsl: JSON.stringify(config.dsl) }
    : config;
}

/** The configuration as the API shows it: the DSL as an object, in its original key order. */
export function shownConfig(config: AgentConfig): ShownAgentConfig {
  return typeof config.dsl === 'string'
    ? { ...config, dsl: dslObject(config.dsl) as Record<string, unknown> }
    : { ...config, dsl: config.dsl };
}

/**
 * `node_timeouts_ms` may name only nodes the agent can run: a graph agent's components
 * (`graph.<component id>`), else a node some service registered (the tenant's own MCP tools
 * included). Anything else is refused (400) naming it, instead of a setting that never applies.
 */
export async function assertNodeTimeouts(
  config: AgentConfig,
  registered: (node: string) => Promise<boolean>,
): Promise<void> {
  const nodes = Object.keys(config.node_timeouts_ms ?? {});
  if (nodes.length === 0) {
    return;
  }
  let isNode: (node: string) => Promise<boolean> = registered;
  if (config.kind === 'graph' && config.dsl !== undefined) {
    // assertAgentConfig validated the DSL already.
    const dsl = validateGraphDsl(dslObject(config.dsl));
    const ids = new Set(Object.keys(dsl.kind === 'ragflow' ? dsl.canvas.components : dsl.workflow.edges));
    isNode = (node) => {
      const id = componentIdOfNode(node);
      return Promise.resolve(id !== undefined && (ids.has(id) || node === GRAPH_ENTRY_NODE));
    };
  }
  const unknown: string[] = [];
  for (const node of nodes) {
    if (!(await isNode(node))) {
      unknown.push(node);
    }
  }
  if (unknown.length > 0) {
    throw new ApiException(
      ApiErrorCode.InvalidRequest,
      'the request is invalid',
      unknown.map((node) => ({
        field: `node_timeouts_ms.${node}`,
        message:
          config.kind === 'graph'
            ? `"${node}" is not a node of this graph agent (its components run as graph.<component id>)`
            : `"${node}" is not a node any service registered`,
      })),
    );
  }
}

/**
 * Everything an agent's configuration is checked for before it is stored (`/v1/agents`, LangGraph
 * assistants): its DSL, and deadlines only for nodes a service registered for the tenant and that
 * answer tasks (a person answers ask_user's: no deadline). 400 naming each problem.
 */
export async function assertStorableAgent(
  config: AgentConfig,
  tenantId: string,
  directory: Pick<NodeDirectory, 'lookup'>,
): Promise<void> {
  assertAgentConfig(config);
  await assertNodeTimeouts(config, async (node) => {
    const reg = await directory.lookup(node);
    return reg !== undefined && reg.kind === 'service' && (!reg.tenant_id || reg.tenant_id === tenantId);
  });
}
