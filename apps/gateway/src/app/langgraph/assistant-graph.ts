import { type AgentConfig, DEFAULT_AGENT_NODES, TOOLS_NODE, graphNodeName } from '@switchyard/contracts';
import {
  isPuppyWorkflow,
  parseCanvas,
  successorsOf as canvasSuccessors,
  validateWorkflow,
} from '@switchyard/graph';

// `GET /assistants/{id}/graph` and `/schemas`: an agent's topology and shapes in LangGraph's JSON
// (what `@langchain/core`'s Graph.toJSON gives for a compiled graph: schema nodes __start__ and
// __end__, runnable nodes, edges with `conditional` where a node chooses among its successors).

export interface LgGraphNode {
  id: string;
  type: 'runnable' | 'schema';
  data: Record<string, unknown>;
  metadata?: Record<string, unknown>;
}
export interface LgGraphEdge {
  source: string;
  target: string;
  conditional?: boolean;
}
export interface LgGraph {
  nodes: LgGraphNode[];
  edges: LgGraphEdge[];
}

const START = '__start__';
const END = '__end__';
const schemaNode = (id: string): LgGraphNode => ({ id, type: 'schema', data: { title: id } });
const runnable = (id: string, name: string, metadata?: Record<string, unknown>): LgGraphNode => ({
  id,
  type: 'runnable',
  data: { id: ['switchyard', name], name },
  ...(metadata ? { metadata } : {}),
});

/**
 * The default agent as its nodes route it (each action's `next`): intake fans out to preprocess
 * and memory, the planner chooses a tool, a question, or the answer; a tool's result goes to
 * reflection and back to the planner; the output ends the run, or archives the turn first for a
 * run with a user. `tools` stands for every tool node the planner may call (calculator, http_get,
 * retrieval, MCP tools, …), each a node of its own in a run.
 */
export function defaultAgentGraph(): LgGraph {
  // `tools` follows the planner, which calls them.
  const nodes = ['start', ...DEFAULT_AGENT_NODES].flatMap((n) => (n === 'planner' ? [n, TOOLS_NODE] : [n]));
  return {
    nodes: [
      schemaNode(START),
      ...nodes.map((n) =>
        runnable(n, n, n === 'tools' ? { stands_for: 'each tool node the planner may call' } : undefined),
      ),
      schemaNode(END),
    ],
    edges: [
      { source: START, target: 'start' },
      { source: 'start', target: 'intake' },
      { source: 'intake', target: 'preprocess' },
      { source: 'intake', target: 'memory' },
      { source: 'preprocess', target: 'planner' },
      { source: 'memory', target: 'planner' },
      { source: 'planner', target: 'tools', conditional: true },
      { source: 'planner', target: 'ask_user', conditional: true },
      { source: 'planner', target: 'output', conditional: true },
      { source: 'tools', target: 'reflection' },
      { source: 'reflection', target: 'planner' },
      { source: 'ask_user', target: 'planner' },
      { source: 'output', target: 'archive', conditional: true },
      { source: 'output', target: END, conditional: true },
      { source: 'archive', target: END },
    ],
  };
}

/** Components that choose among their successors (the others run all of theirs). */
const BRANCHING = new Set(['Switch', 'Categorize']);

/** A RAGFlow canvas: its components, by id, with their downstream edges. */
function canvasGraph(dsl: unknown): LgGraph {
  const canvas = parseCanvas(dsl);
  const components = Object.values(canvas.components);
  const edges: LgGraphEdge[] = [{ source: START, target: 'begin' }];
  for (const c of components) {
    const conditional = BRANCHING.has(c.name) || undefined;
    for (const d of c.downstream) {
      edges.push({ source: c.id, target: d, ...(conditional ? { conditional } : {}) });
    }
    if (c.downstream.length === 0 && !c.parentId) {
      edges.push({ source: c.id, target: END });
    }
  }
  return {
    nodes: [
      schemaNode(START),
      ...components.map((c) =>
        runnable(c.id, c.name, {
          component_name: c.name,
          ...(canvas.names[c.id] ? { label: canvas.names[c.id] } : {}),
          ...(c.parentId ? { parent: c.parentId } : {}),
        }),
      ),
      schemaNode(END),
    ],
    edges,
  };
}

/** A PuppyEngine workflow: its edges are the computations (nodes); blocks link them. */
function workflowGraph(dsl: unknown): LgGraph {
  const wf = validateWorkflow(dsl);
  const edges = Object.entries(wf.edges);
  const producers = new Map<string, string[]>();
  for (const [id, e] of edges) {
    for (const block of Object.keys(e.data.outputs)) {
      producers.set(block, [...(producers.get(block) ?? []), id]);
    }
  }
  const links: LgGraphEdge[] = [];
  const consumed = new Set<string>();
  for (const [id, e] of edges) {
    const from = Object.keys(e.data.inputs).flatMap((block) => producers.get(block) ?? []);
    if (from.length === 0) {
      links.push({ source: START, target: id });
    }
    for (const source of new Set(from)) {
      links.push({
        source,
        target: id,
        ...(wf.edges[source].type === 'ifelse' ? { conditional: true } : {}),
      });
      consumed.add(source);
    }
  }
  for (const [id] of edges) {
    if (!consumed.has(id)) {
      links.push({ source: id, target: END });
    }
  }
  return {
    nodes: [
      schemaNode(START),
      ...edges.map(([id, e]) =>
        runnable(id, e.type, {
          edge_type: e.type,
          inputs: Object.keys(e.data.inputs),
          outputs: Object.keys(e.data.outputs),
        }),
      ),
      schemaNode(END),
    ],
    edges: links,
  };
}

/** The graph of an agent's configuration: the default agent's, a canvas's or a workflow's. */
export function agentGraph(config: AgentConfig | null): LgGraph {
  if (!config || config.kind !== 'graph') {
    return defaultAgentGraph();
  }
  const dsl = typeof config.dsl === 'string' ? (JSON.parse(config.dsl) as unknown) : config.dsl;
  return isPuppyWorkflow(dsl) ? workflowGraph(dsl) : canvasGraph(dsl);
}

const message = {
  type: 'object',
  properties: {
    type: { type: 'string', enum: ['human', 'ai', 'system'] },
    role: { type: 'string', enum: ['user', 'assistant', 'system'] },
    content: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'object' } }] },
    id: { type: 'string' },
  },
  required: ['content'],
};

/** `values` as every thread of the agent answers it (langgraph.views valuesOf). */
const valuesSchema = (graph: boolean) => ({
  title: 'values',
  type: 'object',
  properties: {
    messages: { type: 'array', items: message },
    task_goals: { type: 'array', items: { type: 'string' } },
    todos: { type: 'array', items: { type: 'object' } },
    output_structure: { type: 'array', items: { type: 'object' } },
    scenario: { type: 'string' },
    output_style: { type: 'string' },
    turn: { type: 'integer' },
    ...(graph
      ? { graph: { type: 'object', description: 'the canvas variables and component outputs' } }
      : {}),
  },
});

/** A canvas's Begin form (`params.inputs`), as the `inputs` a run may send. */
function beginForm(config: AgentConfig): Record<string, unknown> | undefined {
  const dsl = typeof config.dsl === 'string' ? (JSON.parse(config.dsl) as unknown) : config.dsl;
  if (isPuppyWorkflow(dsl)) {
    return { type: 'object', description: "the workflow's input blocks, by id or label" };
  }
  const begin = parseCanvas(dsl).components['begin'];
  const fields = (begin?.params['inputs'] ?? {}) as Record<
    string,
    { type?: string; name?: string; optional?: boolean }
  >;
  return {
    type: 'object',
    properties: Object.fromEntries(
      Object.entries(fields).map(([k, f]) => [
        k,
        { description: f.name ?? k, ...(f.type === 'file' ? { type: 'object' } : {}) },
      ]),
    ),
    required: Object.entries(fields)
      .filter(([, f]) => !f.optional)
      .map(([k]) => k),
  };
}

/** `GET /assistants/{id}/schemas`: what a run takes and what its thread's values hold. */
export function agentSchemas(graphId: string, config: AgentConfig | null) {
  const graph = config?.kind === 'graph';
  const inputs = graph ? beginForm(config) : undefined;
  return {
    graph_id: graphId,
    input_schema: {
      title: 'input',
      type: 'object',
      properties: {
        messages: { type: 'array', items: message, description: "the last one is the turn's prompt" },
        ...(inputs ? { inputs } : {}),
      },
      required: ['messages'],
    },
    output_schema: valuesSchema(graph),
    state_schema: valuesSchema(graph),
    // A run's configuration is the agent version's own: `config` and `context` must stay empty.
    config_schema: { title: 'config', type: 'object', properties: {}, additionalProperties: false },
    context_schema: { title: 'context', type: 'object', properties: {}, additionalProperties: false },
  };
}

/** Names for an error message: at most 12, sorted. */
const listed = (names: string[]): string =>
  [...names.sort().slice(0, 12), ...(names.length > 12 ? [`… ${names.length - 12} more`] : [])].join(', ');

/** Canvas components whose successors depend on what they computed. */
const DECIDING = new Set([...BRANCHING, 'IterationItem', 'LoopItem']);

/**
 * `as_node` of a state update: the nodes that run after `node`, as a run's `next` names them —
 * the default agent's declared successors, or a canvas component's (RAGFlow's routing, the
 * component `c` being the node `graph.c`). A node that chooses its successors by what it computed
 * (the planner, the output, Switch, Categorize, a loop's or iteration's item) has no fixed answer
 * and is refused by name, as is a node the agent lacks; a PuppyEngine workflow's edges run when
 * their blocks are written, so none stands for a step. `__start__` is what an input would run.
 * Throws an Error saying why.
 */
export function asNodeSuccessors(config: AgentConfig | null, node: string): string[] {
  if (config?.kind === 'graph') {
    const dsl = typeof config.dsl === 'string' ? (JSON.parse(config.dsl) as unknown) : config.dsl;
    if (isPuppyWorkflow(dsl)) {
      throw new Error(
        'a PuppyEngine workflow runs each edge once its input blocks are written: no node stands for a step',
      );
    }
    const canvas = parseCanvas(dsl);
    if (node === START) {
      return [graphNodeName('begin')];
    }
    const c = canvas.components[node];
    if (!c) {
      throw new Error(
        `"${node}" is not a component of the canvas (${listed(Object.keys(canvas.components))})`,
      );
    }
    if (DECIDING.has(c.name)) {
      throw new Error(`"${node}" (${c.name}) chooses its successors by what it computes`);
    }
    return canvasSuccessors(canvas, node).map(graphNodeName);
  }
  const g = defaultAgentGraph();
  const tools = config?.tools ?? [];
  const name = node === START ? 'start' : tools.includes(node) ? 'tools' : node;
  if (!g.nodes.some((n) => n.id === name && n.type === 'runnable')) {
    const known = g.nodes.filter((n) => n.type === 'runnable').map((n) => n.id);
    throw new Error(`"${node}" is not a node of the agent (${[START, ...known, ...tools].join(', ')})`);
  }
  const out = g.edges.filter((e) => e.source === name);
  if (out.some((e) => e.conditional)) {
    throw new Error(`"${node}" chooses its successors at run time (${out.map((e) => e.target).join(', ')})`);
  }
  return out.map((e) => e.target).filter((t) => t !== END);
}
