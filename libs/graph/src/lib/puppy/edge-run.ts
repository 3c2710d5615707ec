import { GraphErrorCode, GraphException } from '../graph.exception';
import { pyJsonDumps, pyStr } from '../py-value';
import { runChunk } from './chunk';
import { IfElseParamsSchema, evaluateIfElse } from './ifelse';
import { type EdgeInputValue, isLoop, loopedCombinations } from './looped';
import { type ModifyType, runModify } from './modify';
import { type LabelledValue, normalizeBlockContent, replacePlaceholders } from './placeholders';
import type { BlockView } from './scheduler';
import type { PuppyWorkflow } from './workflow.schema';

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A chat message as an llm edge sends it. */
export interface PuppyMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}
/** One model call of an llm edge (one per looped combination). */
export interface PuppyLlmCall {
  messages: PuppyMessage[];
  structured: boolean;
}

/** The edge's inputs as it reads them: each block normalized (structured JSON parsed, …). */
export function edgeInputValues(
  workflow: PuppyWorkflow,
  edgeId: string,
  views: Record<string, BlockView>,
): EdgeInputValue[] {
  return Object.keys(workflow.edges[edgeId].data.inputs).map((blockId) => {
    const block = workflow.blocks[blockId];
    return {
      blockId,
      looped: block.looped === true,
      content: normalizeBlockContent(block, views[blockId]?.content ?? null),
    };
  });
}

function labelled(workflow: PuppyWorkflow, edgeId: string, combo: Json): LabelledValue[] {
  // Placeholders name blocks by their label in the workflow (what PuppyEngine looks up).
  return Object.keys(workflow.edges[edgeId].data.inputs).map((blockId) => ({
    blockId,
    label: workflow.blocks[blockId].label,
    value: combo[blockId],
  }));
}

const asMessageText = (v: unknown): string => (typeof v === 'string' ? v : pyJsonDumps(v));

/**
 * The model calls of an llm edge, one per looped combination in product order: `chat_histories`
 * then `messages`, placeholders filled, a message that became a structure `json.dumps`'d, and for
 * `structured_output` a last user message "in json format" (PuppyEngine's JSON mode).
 */
export function llmCalls(
  workflow: PuppyWorkflow,
  edgeId: string,
  views: Record<string, BlockView>,
): PuppyLlmCall[] {
  const d = workflow.edges[edgeId].data as Json;
  const list = (key: string) => (Array.isArray(d[key]) ? (d[key] as unknown[]).filter(isRecord) : []);
  const structured = d['structured_output'] === true;
  return loopedCombinations(edgeInputValues(workflow, edgeId, views)).map((combo) => {
    const values = labelled(workflow, edgeId, combo);
    const render = (m: Json): PuppyMessage => ({
      role: m['role'] === 'system' || m['role'] === 'assistant' ? m['role'] : 'user',
      content: asMessageText(replacePlaceholders(String(m['content'] ?? ''), values)),
    });
    const messages = [...list('chat_histories').map(render), ...list('messages').map(render)];
    if (structured) {
      messages.push({ role: 'user', content: 'in json format' });
    }
    return { messages, structured };
  });
}

/**
 * What an edge writes: a normal edge writes its result — or, run as a loop, the list of its
 * results — to every output block.
 */
export function writeToOutputs(
  workflow: PuppyWorkflow,
  edgeId: string,
  results: readonly unknown[],
): Record<string, unknown> {
  const value = isLoop(results) ? [...results] : results[0];
  return Object.fromEntries(Object.keys(workflow.edges[edgeId].data.outputs).map((id) => [id, value]));
}

/**
 * edit_structured's `value*` params with their placeholders filled for one combination (a whole
 * placeholder gives the block's value, a spliced one is escaped). Upstream fills them in the one
 * extra_configs object all the combinations of a loop share, so every combination gets the first
 * one's values; here each gets its own.
 */
function withOperationValues(extra: Json, values: LabelledValue[]): Json {
  if (!Array.isArray(extra['operations'])) {
    return extra;
  }
  const operations = extra['operations'].map((op: unknown) => {
    if (!isRecord(op) || !isRecord(op['params'])) {
      return op;
    }
    const params = Object.fromEntries(
      Object.entries(op['params']).map(([k, v]) => [
        k,
        k.startsWith('value') && typeof v === 'string' ? replacePlaceholders(v, values, false, true) : v,
      ]),
    );
    return { ...op, params };
  });
  return { ...extra, operations };
}

/** Runs an edge that needs no model or store (ifelse, modify, chunk): the blocks it writes. */
export function runPureEdge(
  workflow: PuppyWorkflow,
  edgeId: string,
  views: Record<string, BlockView>,
): Record<string, unknown> {
  const edge = workflow.edges[edgeId];
  const d = edge.data as Json;
  const extra = isRecord(d['extra_configs']) ? d['extra_configs'] : {};
  switch (edge.type) {
    case 'ifelse': {
      const params = IfElseParamsSchema.parse(d);
      const combos = loopedCombinations(edgeInputValues(workflow, edgeId, views));
      const results = combos.map((combo) => evaluateIfElse(params, combo));
      // A looped ifelse's result is a list, not a block map, so PuppyEngine writes the list of
      // per-combination results to every output block, like a normal edge (EdgeResultMapper).
      return isLoop(results) ? writeToOutputs(workflow, edgeId, results) : results[0];
    }
    case 'modify': {
      const combos = loopedCombinations(edgeInputValues(workflow, edgeId, views), true);
      const type = d['modify_type'] as ModifyType;
      const results = combos.map((combo) => {
        const values = labelled(workflow, edgeId, combo);
        const content = replacePlaceholders(String(d['content'] ?? ''), values, type === 'edit_text');
        return runModify(type, content, withOperationValues(extra, values));
      });
      return writeToOutputs(workflow, edgeId, results);
    }
    case 'chunk': {
      // ChunkConfigParser: the edge's (one) input block is the document; a looped block's items
      // are chunked one by one (as str()), and a looped block — even one holding a text — makes
      // the result a list, one chunk list per item.
      const { docs, looped } = chunkDocs(workflow, edgeId, views);
      const results = docs.map((doc) =>
        runChunk(String(d['chunking_mode']), d['sub_chunking_mode'], doc, extra),
      );
      return chunkOutputs(workflow, edgeId, looped ? results : results[0]);
    }
    default:
      throw new GraphException(
        GraphErrorCode.ComponentFailed,
        `the ${edge.type} edge needs a model or a store`,
      );
  }
}

/** One data source of a search edge: the block it names and the index set asked for. */
export interface SearchSource {
  id: string;
  label?: string;
  index_item?: { index_name?: string; collection_configs?: Record<string, unknown> };
}

/**
 * What a vector search edge asks of the store, as PuppyEngine's `SearchConfigParser` reads it:
 * the query block's text (one search per item of a looped query), the data sources (resolved
 * against their blocks at run time), `top_k` (10) and `extra_configs.threshold` (the edge's own
 * top-level `threshold` is not passed on upstream, so none when absent).
 */
export interface SearchPlan {
  queries: string[];
  sources: SearchSource[];
  topK: number;
  threshold?: number;
}

export function searchPlan(
  workflow: PuppyWorkflow,
  edgeId: string,
  views: Record<string, BlockView>,
): SearchPlan {
  const d = workflow.edges[edgeId].data as Json;
  const extra = isRecord(d['extra_configs']) ? d['extra_configs'] : {};
  const queryId = Object.keys(isRecord(d['query_id']) ? d['query_id'] : {})[0];
  // Only the query block varies (a looped query searches once per item).
  const query = edgeInputValues(workflow, edgeId, views).filter((i) => i.blockId === queryId);
  return {
    queries: loopedCombinations(query).map((combo) => pyStr(combo[queryId] ?? '')),
    sources: (Array.isArray(d['data_source']) ? d['data_source'] : []).filter(
      isRecord,
    ) as unknown as SearchSource[],
    topK: typeof d['top_k'] === 'number' ? d['top_k'] : 10,
    ...(typeof extra['threshold'] === 'number' ? { threshold: extra['threshold'] } : {}),
  };
}

/**
 * The texts an edge that reads one block takes (PuppyEngine's `_prase_single_block_content`, as
 * deep research does): the first input block's content, once per item when it is looped.
 */
export function firstInputTexts(
  workflow: PuppyWorkflow,
  edgeId: string,
  views: Record<string, BlockView>,
): string[] {
  const [first] = edgeInputValues(workflow, edgeId, views);
  if (!first) {
    return [''];
  }
  return loopedCombinations([first]).map((combo) => pyStr(combo[first.blockId] ?? ''));
}

/** A chunk edge's documents: its one input block, item by item when looped (as str()). */
export function chunkDocs(
  workflow: PuppyWorkflow,
  edgeId: string,
  views: Record<string, BlockView>,
): { docs: unknown[]; looped: boolean } {
  const [input] = edgeInputValues(workflow, edgeId, views);
  return { docs: loopedCombinations([input]).map((combo) => combo[input.blockId]), looped: input.looped };
}

/** What a chunk edge writes: the chunk list (one per item when looped) to every output block. */
export function chunkOutputs(
  workflow: PuppyWorkflow,
  edgeId: string,
  value: unknown,
): Record<string, unknown> {
  return Object.fromEntries(Object.keys(workflow.edges[edgeId].data.outputs).map((id) => [id, value]));
}
