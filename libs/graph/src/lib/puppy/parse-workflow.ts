import { type z } from 'zod';
import { GraphErrorCode, GraphException, type GraphProblem, describeProblems } from '../graph.exception';
import { editorToEngine, isEditorWorkflow } from './editor';
import { generatorProblems } from './generator';
import { IfElseParamsSchema, operationProblem } from './ifelse';
import { loadProblems } from './load';
import { chunkProblems } from './chunk-problems';
import { modifyProblems } from './modify-problems';
import { placeholderLabels } from './placeholders';
import { MAX_RESEARCH_ITERATIONS, WEB_TOP_K_MAX } from './research';
import { RESERVED_EDGE_IDS } from './scheduler';
import { PUPPY_EDGE_TYPES, type PuppyEdge, type PuppyWorkflow, PuppyWorkflowSchema } from './workflow.schema';

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

// Edge ids become node names (graphNodeName): letters, digits, "_", "-" and ":".
const EDGE_ID = /^[A-Za-z0-9_:-]+$/;
/** The search types this runtime runs: its index (vector), the web, a model that searches (qa). */
const SEARCH_TYPES = ['vector', 'web', 'qa'];
/** The most entries a vector search returns (what /v1/collections search allows). */
const VECTOR_TOP_K_MAX = 100;
const isTopK = (v: unknown, max: number): boolean =>
  typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= max;
/** The engine's submit path accepts only this version (or none). */
export const PUPPY_VERSION = '0.2';

/** A PuppyEngine engine JSON (`blocks`/`edges` objects) or PuppyFlow editor workflow. */
export function isPuppyWorkflow(raw: unknown): boolean {
  if (isEditorWorkflow(raw)) {
    return true;
  }
  return isRecord(raw) && isRecord(raw['blocks']) && isRecord(raw['edges']) && !('components' in raw);
}

function zodProblems(error: z.ZodError): GraphProblem[] {
  return error.issues.map((issue) => {
    const [top, id, ...rest] = issue.path.map(String);
    const where = top === 'edges' ? { edge: id } : top === 'blocks' ? { block: id } : {};
    const field = (top === 'edges' || top === 'blocks' ? rest : issue.path.map(String)).join('.');
    return { code: GraphErrorCode.InvalidDsl, ...where, ...(field ? { field } : {}), message: issue.message };
  });
}

/** Texts whose placeholders an edge renders, with their field paths. */
function placeholderFields(edge: PuppyEdge): [string, string][] {
  const d = edge.data as Json;
  const out: [string, string][] = [];
  if (edge.type === 'llm') {
    for (const key of ['messages', 'chat_histories']) {
      const list = Array.isArray(d[key]) ? (d[key] as unknown[]) : [];
      list.forEach((m, i) => {
        if (isRecord(m) && typeof m['content'] === 'string') {
          out.push([`data.${key}.${i}.content`, m['content']]);
        }
      });
    }
  }
  if (edge.type === 'modify') {
    if (typeof d['content'] === 'string') {
      out.push(['data.content', d['content']]);
    }
    const extra = isRecord(d['extra_configs']) ? d['extra_configs'] : {};
    const ops = Array.isArray(extra['operations']) ? extra['operations'] : [];
    ops.forEach((op, i) => {
      const params = isRecord(op) && isRecord(op['params']) ? op['params'] : {};
      for (const [k, v] of Object.entries(params)) {
        if (k.startsWith('value') && typeof v === 'string') {
          out.push([`data.extra_configs.operations.${i}.params.${k}`, v]);
        }
      }
    });
  }
  return out;
}

function typeProblems(workflow: PuppyWorkflow, id: string, edge: PuppyEdge): GraphProblem[] {
  const problems: GraphProblem[] = [];
  const d = edge.data as Json;
  const add = (field: string, message: string, code = GraphErrorCode.MissingParam) =>
    problems.push({ code, edge: id, field, message });
  const inputs = edge.data.inputs;
  const outputs = edge.data.outputs;
  switch (edge.type) {
    case 'llm':
      if (!Array.isArray(d['messages']) || d['messages'].length === 0) {
        add('data.messages', 'an llm edge needs its messages');
      }
      break;
    case 'modify':
      problems.push(...modifyProblems(id, d));
      break;
    case 'chunk':
      problems.push(...chunkProblems(id, d, inputs));
      break;
    case 'ifelse': {
      const cases = isRecord(d['cases']) ? d['cases'] : undefined;
      if (!cases || Object.keys(cases).length === 0) {
        add('data.cases', 'an ifelse edge needs its cases');
        break;
      }
      for (const [name, c] of Object.entries(cases)) {
        const at = `data.cases.${name}`;
        if (isRecord(c) && c['thens'] === undefined && c['then'] !== undefined) {
          add(
            `${at}.then`,
            'PuppyEngine reads `thens`, not the legacy `then`: this case would write nothing (rename it to thens)',
          );
          continue;
        }
        const parsed = IfElseParamsSchema.safeParse({ cases: { [name]: c } });
        if (!parsed.success) {
          for (const issue of parsed.error.issues) {
            add(`data.${issue.path.map(String).join('.')}`, issue.message);
          }
          continue;
        }
        const parsedCase = parsed.data.cases[name];
        const wrong = operationProblem(parsedCase.conditions.map((x) => x.operation));
        if (wrong) {
          add(`${at}.conditions.${wrong.index}.operation`, wrong.message);
        }
        parsedCase.conditions.forEach((cond, i) => {
          if (!Object.hasOwn(inputs, cond.block)) {
            add(
              `${at}.conditions.${i}.block`,
              `block "${cond.block}" is not an input of the edge`,
              GraphErrorCode.DanglingReference,
            );
          }
        });
        parsedCase.thens.forEach((then, i) => {
          if (!Object.hasOwn(inputs, then.from)) {
            add(
              `${at}.thens.${i}.from`,
              `block "${then.from}" is not an input of the edge`,
              GraphErrorCode.DanglingReference,
            );
          }
          if (!Object.hasOwn(outputs, then.to)) {
            add(
              `${at}.thens.${i}.to`,
              `block "${then.to}" is not an output of the edge`,
              GraphErrorCode.DanglingReference,
            );
          }
        });
      }
      break;
    }
    case 'search': {
      if (!SEARCH_TYPES.includes(String(d['search_type']))) {
        add(
          'data.search_type',
          `the search type "${String(d['search_type'])}" is not supported by this runtime (one of ${SEARCH_TYPES.join(', ')})`,
          GraphErrorCode.UnknownComponent,
        );
        break;
      }
      const query = isRecord(d['query_id']) ? Object.keys(d['query_id']) : [];
      if (query.length !== 1) {
        add('data.query_id', 'a search names exactly one query block');
      } else if (!Object.hasOwn(inputs, query[0])) {
        add(
          'data.query_id',
          `block "${query[0]}" is not an input of the edge`,
          GraphErrorCode.DanglingReference,
        );
      }
      if (d['search_type'] === 'web') {
        const topK = d['top_k'] ?? 10;
        if (typeof topK !== 'number' || !Number.isInteger(topK) || topK < 1 || topK > WEB_TOP_K_MAX) {
          add('data.top_k', `a web search returns 1 to ${WEB_TOP_K_MAX} results (its provider's limit)`);
        }
      }
      if (d['search_type'] !== 'vector') {
        break;
      }
      if (d['top_k'] !== undefined && !isTopK(d['top_k'], VECTOR_TOP_K_MAX)) {
        add('data.top_k', `a vector search returns 1 to ${VECTOR_TOP_K_MAX} entries`);
      }
      const sources = Array.isArray(d['data_source']) ? d['data_source'] : [];
      if (sources.length === 0) {
        add('data.data_source', 'a vector search needs a data_source');
      }
      sources.forEach((s, i) => {
        const src = isRecord(s) ? s : {};
        if (typeof src['id'] !== 'string' || !Object.hasOwn(inputs, src['id'])) {
          add(
            `data.data_source.${i}.id`,
            `block "${String(src['id'])}" is not an input of the edge`,
            GraphErrorCode.DanglingReference,
          );
        }
        const item = isRecord(src['index_item']) ? src['index_item'] : {};
        const cc = isRecord(item['collection_configs']) ? item['collection_configs'] : {};
        if (!cc['collection_name'] && !item['index_name']) {
          add(
            `data.data_source.${i}.index_item`,
            'index_item must include either collection_configs (with collection_name) or index_name (for runtime resolution)',
          );
        }
      });
      break;
    }
    case 'deep_research': {
      if (Object.keys(inputs).length === 0) {
        add('data.inputs', 'a deep_research edge reads its query from its first input block');
      }
      const extra = isRecord(d['extra_configs']) ? d['extra_configs'] : {};
      const rounds = extra['max_iterations'];
      if (
        rounds !== undefined &&
        (typeof rounds !== 'number' ||
          !Number.isInteger(rounds) ||
          rounds < 1 ||
          rounds > MAX_RESEARCH_ITERATIONS)
      ) {
        add('data.extra_configs.max_iterations', `max_iterations is 1 to ${MAX_RESEARCH_ITERATIONS}`);
      }
      const google = isRecord(extra['google_search_configs']) ? extra['google_search_configs'] : {};
      const webTopK = google['top_k'];
      if (
        webTopK !== undefined &&
        (typeof webTopK !== 'number' || !Number.isInteger(webTopK) || webTopK < 1 || webTopK > WEB_TOP_K_MAX)
      ) {
        add(
          'data.extra_configs.google_search_configs.top_k',
          `a web search returns 1 to ${WEB_TOP_K_MAX} results`,
        );
      }
      const vector = isRecord(extra['vector_search_configs']) ? extra['vector_search_configs'] : {};
      if (vector['top_k'] !== undefined && !isTopK(vector['top_k'], VECTOR_TOP_K_MAX)) {
        add(
          'data.extra_configs.vector_search_configs.top_k',
          `a vector search returns 1 to ${VECTOR_TOP_K_MAX} entries`,
        );
      }
      const sources = Array.isArray(vector['data_source']) ? vector['data_source'] : [];
      sources.forEach((src, i) => {
        const id = isRecord(src) ? src['id'] : undefined;
        if (id !== undefined && (typeof id !== 'string' || !Object.hasOwn(workflow.blocks, id))) {
          add(
            `data.extra_configs.vector_search_configs.data_source.${i}.id`,
            `names block "${String(id)}", which is not a block of the workflow`,
            GraphErrorCode.DanglingReference,
          );
        }
      });
      break;
    }
    case 'generator':
      problems.push(...generatorProblems(id, edge));
      break;
    case 'load':
      problems.push(...loadProblems(workflow, id, edge));
      break;
    default:
      break;
  }
  return problems;
}

function cycleProblems(workflow: PuppyWorkflow): GraphProblem[] {
  const next = new Map<string, string[]>();
  for (const [id, edge] of Object.entries(workflow.edges)) {
    const written = new Set(Object.keys(edge.data.outputs));
    next.set(
      id,
      Object.entries(workflow.edges)
        .filter(([, e]) => Object.keys(e.data.inputs).some((b) => written.has(b)))
        .map(([other]) => other),
    );
  }
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (id: string): GraphProblem | undefined => {
    state.set(id, 'open');
    stack.push(id);
    for (const n of next.get(id) ?? []) {
      if (state.get(n) === 'open') {
        const cycle = [...stack.slice(stack.indexOf(n)), n];
        return {
          code: GraphErrorCode.Cycle,
          edge: id,
          field: 'data.outputs',
          message: `cycle: ${cycle.join(' → ')} (an edge would wait for its own output)`,
        };
      }
      const found = state.has(n) ? undefined : visit(n);
      if (found) {
        return found;
      }
    }
    stack.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const id of next.keys()) {
    const found = state.has(id) ? undefined : visit(id);
    if (found) {
      return [found];
    }
  }
  return [];
}

/** Every problem of a parsed workflow: ids, edge types, block references, placeholders, cycles. */
export function workflowProblems(workflow: PuppyWorkflow): GraphProblem[] {
  const problems: GraphProblem[] = [];
  if (workflow.version !== undefined && workflow.version !== PUPPY_VERSION) {
    problems.push({
      code: GraphErrorCode.InvalidDsl,
      field: 'version',
      message: `PuppyEngine accepts version "${PUPPY_VERSION}" (or none), not "${workflow.version}"`,
    });
  }
  const writer = new Map<string, string>();
  for (const [id, edge] of Object.entries(workflow.edges)) {
    const add = (field: string, message: string, code: GraphErrorCode) =>
      problems.push({ code, edge: id, field, message });
    if (!EDGE_ID.test(id) || RESERVED_EDGE_IDS.has(id)) {
      add(
        'id',
        `edge ids are letters, digits, "_", "-" and ":", and not ${[...RESERVED_EDGE_IDS].join(' or ')}`,
        GraphErrorCode.InvalidDsl,
      );
    }
    if (!PUPPY_EDGE_TYPES.includes(edge.type as (typeof PUPPY_EDGE_TYPES)[number])) {
      add(
        'type',
        `unknown edge type "${edge.type}" (one of ${PUPPY_EDGE_TYPES.join(', ')})`,
        GraphErrorCode.UnknownComponent,
      );
      continue;
    }
    for (const side of ['inputs', 'outputs'] as const) {
      for (const blockId of Object.keys(edge.data[side])) {
        if (!Object.hasOwn(workflow.blocks, blockId)) {
          add(
            `data.${side}.${blockId}`,
            `names block "${blockId}", which is not a block of the workflow`,
            GraphErrorCode.DanglingReference,
          );
        }
      }
    }
    for (const blockId of Object.keys(edge.data.outputs)) {
      const other = writer.get(blockId);
      if (other) {
        add(
          `data.outputs.${blockId}`,
          `block "${blockId}" is already written by edge ${other}: a block has one writer`,
          GraphErrorCode.InvalidDsl,
        );
      } else {
        writer.set(blockId, id);
      }
    }
    const labels = new Set(Object.values(edge.data.inputs));
    for (const [field, text] of placeholderFields(edge)) {
      for (const label of placeholderLabels(text)) {
        if (!labels.has(label)) {
          add(
            field,
            `{{${label}}} names no input block of the edge (inputs: ${[...labels].join(', ') || 'none'})`,
            GraphErrorCode.UnknownVariable,
          );
        }
      }
    }
    problems.push(...typeProblems(workflow, id, edge));
  }
  return [...problems, ...cycleProblems(workflow)];
}

/**
 * Reads a PuppyEngine workflow — engine JSON, or a PuppyFlow editor workflow / template package
 * converted to engine JSON — and validates it. Throws a {@link GraphException} listing every
 * problem (edge or block, and field).
 */
export function validateWorkflow(raw: unknown): PuppyWorkflow {
  const engine = isEditorWorkflow(raw) ? editorToEngine(raw) : raw;
  const parsed = PuppyWorkflowSchema.safeParse(engine);
  if (!parsed.success) {
    const problems = zodProblems(parsed.error);
    throw new GraphException(GraphErrorCode.InvalidDsl, describeProblems(problems), problems);
  }
  const problems = workflowProblems(parsed.data);
  if (problems.length) {
    throw new GraphException(problems[0].code, describeProblems(problems), problems);
  }
  return parsed.data;
}
