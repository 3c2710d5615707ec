import { z } from 'zod';

/**
 * Graph agents (`kind: "graph"`): each component of the agent's canvas is a node named
 * `graph.<component>`, served by one prefix handler; the orchestrator routes on `next` as for
 * any node and learns nothing of components.
 */
export const GRAPH_NODE_PREFIX = 'graph';
/** Every canvas starts at its Begin component, whose id is `begin`. */
export const GRAPH_ENTRY_NODE = `${GRAPH_NODE_PREFIX}.begin`;

/**
 * Where a graph node runs, declared here once: the RAGFlow components and PuppyEngine edge types
 * that compute on the state alone run inline, in the orchestrator's step transaction (libs/graph
 * implements each: a `pure` runner in COMPONENTS, purePuppyEdge); every other node in its service (the planner).
 * `SWITCHYARD_INLINE_NODES=off` sends them over NATS too. docs/architecture.md, "Where a node runs".
 */
export const INLINE_COMPONENTS = [
  'Begin',
  'Switch',
  'VariableAssigner',
  'VariableAggregator',
  'StringTransform',
  'DataOperations',
  'ListOperations',
  'Loop',
  'LoopItem',
  'ExitLoop',
  'Iteration',
  'IterationItem',
] as const;
export type InlineComponentName = (typeof INLINE_COMPONENTS)[number];
/** PuppyEngine edges the orchestrator runs itself: deterministic, bounded, no model and no I/O. */
export const INLINE_PUPPY_EDGES: readonly string[] = ['ifelse', 'modify', 'chunk'];

/**
 * RAGFlow's web tools that run here, as canvas components and as Agent tools, declared once:
 * libs/provider-tools has a spec for each (WEB_TOOL_SPECS, typed by this list) and libs/graph's
 * validator knows them: every tool of RAGFlow's agent (seed 002) and the older Baidu, BaiduFanyi,
 * TuShare and Jin10 components.
 */
export const WEB_TOOL_COMPONENTS = [
  'Wikipedia',
  'Email',
  'AkShare',
  'WenCai',
  'GitHub',
  'SearXNG',
  'Google',
  'GoogleScholar',
  'DuckDuckGo',
  'ArXiv',
  'PubMed',
  'QWeather',
  'DeepL',
  'BaiduFanyi',
  'TuShare',
  'Jin10',
  'TavilyExtract',
  'Crawler',
  'Baidu',
] as const;
export type WebToolComponentName = (typeof WEB_TOOL_COMPONENTS)[number];

/** Whether a RAGFlow component of this name runs inline (see INLINE_COMPONENTS). */
export function isInlineComponent(name: string): name is InlineComponentName {
  return (INLINE_COMPONENTS as readonly string[]).includes(name);
}

/**
 * The node of a component (or of a PuppyEngine edge). Node names are lower-case, ids are not
 * (`Switch:Route`, `llm-1723230193364`): an upper-case letter becomes `-` + the letter, `:`
 * becomes `--` and `-` becomes `-_`, so every `-` starts a pair and the name decodes back.
 */
export function graphNodeName(componentId: string): string {
  let out = '';
  for (const ch of componentId) {
    if (ch === ':') {
      out += '--';
    } else if (ch === '-') {
      out += '-_';
    } else if (ch >= 'A' && ch <= 'Z') {
      out += `-${ch.toLowerCase()}`;
    } else {
      out += ch;
    }
  }
  return `${GRAPH_NODE_PREFIX}.${out}`;
}

/**
 * The nodes whose tokens are a run's answer: the default agent's output node, or a graph agent's
 * components (Messages are its only streaming ones).
 */
export const isAnswerNode = (node: string): boolean =>
  node === 'output' || componentIdOfNode(node) !== undefined;

const DECODED_MAX = 10_000;
const decoded = new Map<string, string>();

/** The component a `graph.*` node runs, or undefined for any other node. */
export function componentIdOfNode(node: string): string | undefined {
  const prefix = `${GRAPH_NODE_PREFIX}.`;
  if (!node.startsWith(prefix)) {
    return undefined;
  }
  // A run's every step decodes the turn's node names: the few distinct ones are remembered.
  let id = decoded.get(node);
  if (id === undefined) {
    id = decodeComponentId(node.slice(prefix.length));
    if (decoded.size >= DECODED_MAX) {
      decoded.clear();
    }
    decoded.set(node, id);
  }
  return id;
}

function decodeComponentId(encoded: string): string {
  let out = '';
  for (let i = 0; i < encoded.length; i++) {
    if (encoded[i] !== '-') {
      out += encoded[i];
    } else if (encoded[i + 1] === '-') {
      out += ':';
      i++;
    } else if (encoded[i + 1] === '_') {
      out += '-';
      i++;
    } else {
      out += (encoded[i + 1] ?? '').toUpperCase();
      i++;
    }
  }
  return out;
}

/**
 * A graph agent's canvas state in the thread (`RuntimeState.graph`): the canvas variables
 * (`sys.*`, `env.*`, keyed by their whole name) and every component's outputs. Begin opens it
 * each turn; a component patches only `outputs/<its id>` (and `globals`, for VariableAssigner).
 */
export const GraphStateSchema = z
  .object({
    globals: z.record(z.string(), z.unknown()),
    outputs: z.record(z.string(), z.record(z.string(), z.unknown())),
  })
  .strict();
export type GraphState = z.infer<typeof GraphStateSchema>;
