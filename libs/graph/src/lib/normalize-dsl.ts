import { type z } from 'zod';
import {
  type Canvas,
  type CanvasDsl,
  CanvasDslSchema,
  type CanvasGraph,
  CanvasGraphSchema,
  type NormalizedComponent,
} from './dsl.schema';
import { GraphErrorCode, GraphException, type GraphProblem, describeProblems } from './graph.exception';

// Editor nodes that are not components (web `excludeFromDsl`).
const NOT_COMPONENTS = new Set(['Note', 'Tool', 'Placeholder']);
// React-Flow handle ids of RAGFlow's editor (web `NodeHandleId`).
const AGENT_TOP = 'agentTop';
const AGENT_EXCEPTION = 'agentException';

type RawComponents = CanvasDsl['components'];

/**
 * Derives `components` from the editor graph, as RAGFlow's web client does before saving
 * (`buildDslComponentsByGraph`): one component per node, `downstream`/`upstream` from edges,
 * Categorize items → `category_description` with their `to`, sub-agents → Agent tools.
 */
export function componentsFromGraph(graph: CanvasGraph): RawComponents {
  const label = new Map(graph.nodes.map((n) => [n.id, n.data.label]));
  const subAgents = new Set(
    graph.edges
      .filter((e) => e.targetHandle === AGENT_TOP && label.get(e.target) === 'Agent')
      .map((e) => e.target),
  );
  const components: RawComponents = {};
  for (const node of graph.nodes) {
    const name = node.data.label;
    if (NOT_COMPONENTS.has(name) || subAgents.has(node.id)) {
      continue;
    }
    const params: Record<string, unknown> = { ...(node.data.form ?? {}) };
    const out = graph.edges.filter((e) => e.source === node.id);
    const downstream = out
      .filter(
        (e) =>
          name !== 'Agent' ||
          (e.sourceHandle !== AGENT_EXCEPTION &&
            label.get(e.target) !== 'Tool' &&
            !(label.get(e.target) === 'Agent' && e.targetHandle === AGENT_TOP)),
      )
      .map((e) => e.target);
    if (name === 'Categorize' && Array.isArray(params['items'])) {
      const described: Record<string, unknown> = {};
      for (const item of params['items'] as Record<string, unknown>[]) {
        const examples = Array.isArray(item['examples']) ? (item['examples'] as { value?: unknown }[]) : [];
        described[String(item['name'])] = {
          description: item['description'] ?? '',
          examples: examples.map((e) => e.value),
          to: out.filter((e) => e.sourceHandle === item['uuid']).map((e) => e.target),
        };
      }
      params['category_description'] = described;
      delete params['items'];
    }
    if (name === 'Agent') {
      params['tools'] = withSubAgents(graph, node.id, params['tools'], subAgents, new Set([node.id]));
      const gotos = out.filter((e) => e.sourceHandle === AGENT_EXCEPTION).map((e) => e.target);
      if (gotos.length) {
        params['exception_goto'] = gotos;
      }
    }
    components[node.id] = {
      obj: { component_name: name, params },
      downstream,
      upstream: graph.edges.filter((e) => e.target === node.id).map((e) => e.source),
      parent_id: node.parentId ?? undefined,
    };
  }
  return components;
}

/**
 * An Agent's `tools` plus its bottom sub-agents (edges into their `agentTop` handle), each with
 * its own form as params and, recursively, its own sub-agents among its tools.
 */
function withSubAgents(
  graph: CanvasGraph,
  agentId: string,
  declared: unknown,
  subAgents: ReadonlySet<string>,
  seen: ReadonlySet<string>,
): unknown[] {
  const tools = Array.isArray(declared) ? [...(declared as unknown[])] : [];
  for (const e of graph.edges) {
    if (
      e.source !== agentId ||
      e.targetHandle !== AGENT_TOP ||
      !subAgents.has(e.target) ||
      seen.has(e.target)
    ) {
      continue;
    }
    const sub = graph.nodes.find((n) => n.id === e.target);
    const form: Record<string, unknown> = { ...(sub?.data.form ?? {}) };
    form['tools'] = withSubAgents(graph, e.target, form['tools'], subAgents, new Set([...seen, e.target]));
    tools.push({ component_name: 'Agent', id: e.target, name: sub?.data.name ?? e.target, params: form });
  }
  return tools;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function zodProblems(error: z.ZodError, prefix: string): GraphProblem[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String);
    // components.<id>.obj.params… → component <id>, field obj.params…
    const component = path[0] === 'components' ? path[1] : undefined;
    const field = (component ? path.slice(2) : path).join('.') || undefined;
    return {
      code: GraphErrorCode.InvalidDsl,
      ...(component ? { component } : {}),
      ...(field ? { field: `${prefix}${field}` } : {}),
      message: issue.message,
    };
  });
}

/**
 * Other names of components (older RAGFlow DSLs and docs): `FillUp` is UserFillUp, `DocsGenerator`
 * is DocGenerator. A canvas keeps its own spelling in its JSON; it runs as the canonical component.
 */
export const COMPONENT_ALIASES: Readonly<Record<string, string>> = {
  FillUp: 'UserFillUp',
  DocsGenerator: 'DocGenerator',
};

/**
 * Reads a RAGFlow agent DSL in any of its three forms — components (with or without `graph`),
 * graph-only (components derived as the editor does), or a template wrapper `{…, dsl}` — into a
 * normalized {@link Canvas}. Throws a {@link GraphException} naming the field when it is none.
 */
export function parseCanvas(raw: unknown): Canvas {
  let dsl = raw;
  if (isRecord(dsl) && isRecord(dsl['dsl']) && !('components' in dsl) && !('graph' in dsl)) {
    dsl = dsl['dsl'];
  }
  if (!isRecord(dsl)) {
    throw new GraphException(GraphErrorCode.InvalidDsl, 'a graph DSL is a JSON object', [
      { code: GraphErrorCode.InvalidDsl, field: 'dsl', message: 'a graph DSL is a JSON object' },
    ]);
  }
  const hasComponents = isRecord(dsl['components']) && Object.keys(dsl['components']).length > 0;
  let input: Record<string, unknown> = dsl;
  if (!hasComponents) {
    const graph = CanvasGraphSchema.safeParse(dsl['graph']);
    if (dsl['graph'] === undefined) {
      const message = 'the DSL has neither components nor a graph to derive them from';
      throw new GraphException(GraphErrorCode.InvalidDsl, message, [
        { code: GraphErrorCode.InvalidDsl, field: 'components', message },
      ]);
    }
    if (!graph.success) {
      const problems = zodProblems(graph.error, 'graph.');
      throw new GraphException(GraphErrorCode.InvalidDsl, describeProblems(problems), problems);
    }
    input = { ...dsl, components: componentsFromGraph(graph.data) };
  }
  const parsed = CanvasDslSchema.safeParse(input);
  if (!parsed.success) {
    const problems = zodProblems(parsed.error, '');
    throw new GraphException(GraphErrorCode.InvalidDsl, describeProblems(problems), problems);
  }
  const components: Record<string, NormalizedComponent> = {};
  for (const [id, c] of Object.entries(parsed.data.components)) {
    components[id] = {
      id,
      name: COMPONENT_ALIASES[c.obj.component_name] ?? c.obj.component_name,
      params: c.obj.params ?? {},
      downstream: c.downstream,
      upstream: c.upstream,
      ...(c.parent_id ? { parentId: c.parent_id } : {}),
    };
  }
  const names: Record<string, string> = {};
  for (const node of parsed.data.graph?.nodes ?? []) {
    if (node.data.name) {
      names[node.id] = node.data.name;
    }
  }
  return { components, globals: parsed.data.globals, variables: parsed.data.variables, names };
}
