import { GraphErrorCode, type GraphProblem } from '../graph.exception';
import { pyJsonDumps, pyStr } from '../py-value';
import { type PuppyMessage, edgeInputValues } from './edge-run';
import { loopedCombinations } from './looped';
import { PUPPY_SYSTEM_PROMPTS, PUPPY_USER_PROMPTS } from './prompt-templates';
import type { BlockView } from './scheduler';
import type { PuppyEdge, PuppyWorkflow } from './workflow.schema';

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One model call of a generator edge (one per looped combination). */
export interface PuppyGeneratorCall {
  messages: PuppyMessage[];
  structured: boolean;
}

/** Python `json.dumps(v, indent=indent, ensure_ascii=False)`: items on their own lines, `", "` → `","`. */
export function pyJsonDumpsIndented(v: unknown, indent = 2, depth = 0): string {
  const pad = (n: number) => ' '.repeat(indent * n);
  if (Array.isArray(v)) {
    if (v.length === 0) {
      return '[]';
    }
    const items = v.map((x) => `${pad(depth + 1)}${pyJsonDumpsIndented(x, indent, depth + 1)}`);
    return `[\n${items.join(',\n')}\n${pad(depth)}]`;
  }
  if (isRecord(v)) {
    const entries = Object.entries(v);
    if (entries.length === 0) {
      return '{}';
    }
    const items = entries.map(
      ([k, x]) => `${pad(depth + 1)}${JSON.stringify(k)}: ${pyJsonDumpsIndented(x, indent, depth + 1)}`,
    );
    return `{\n${items.join(',\n')}\n${pad(depth)}}`;
  }
  return pyJsonDumps(v);
}

/**
 * `GeneratorConfigParser._process_field_content`: each named block's value (blocks the edge does
 * not read are left out), serialized "intelligently" — a list of strings joined by a blank line,
 * another list or an object as indented JSON, anything else as Python's `str()`.
 */
export function fieldContents(ids: readonly string[], values: Json): string[] {
  return ids
    .filter((id) => Object.hasOwn(values, id))
    .map((id) => {
      const content = values[id];
      if (Array.isArray(content) && content.every((x) => typeof x === 'string')) {
        return content.join('\n\n');
      }
      if (Array.isArray(content) || isRecord(content)) {
        return pyJsonDumpsIndented(content);
      }
      return pyStr(content);
    });
}

/** `_format_numbered_items`: none → "", one → itself, more → `"<prefix> n: item"` joined by a blank line. */
export function numberedItems(items: readonly string[], prefix: string): string {
  if (items.length === 0) {
    return '';
  }
  if (items.length === 1) {
    return items[0];
  }
  return items.map((item, i) => `${prefix} ${i + 1}: ${item}`).join('\n\n');
}

// The replacement fields a template may name: what `llm_generation` passes to `str.format`.
const FORMAT_FIELD = /\{(\w*)\}/g;
const FORMAT_VALUES = new Set(['context', 'query']);

/** Python `template.format(context=…, query=…)` on PuppyEngine's templates (no `{{` escapes in them). */
export function formatTemplate(template: string, values: { context: string; query: string }): string {
  return template.replace(FORMAT_FIELD, (_, name: string) => values[name as keyof typeof values]);
}

const templateName = (v: unknown): string => (v === undefined ? 'default' : String(v));
const lookup = (table: Readonly<Record<string, string>>, name: string): string =>
  Object.hasOwn(table, name) ? table[name] : '';
const idList = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

/**
 * The model calls of a generator edge, as PuppyEngine's `GeneratorConfigParser` and
 * `llm_generation` build them, one per looped combination in product order (looped items as
 * Python `str()`): `queries` and `docs` (block ids) become the numbered "Query n:" / "Document n:"
 * texts `query` and `context`; the messages are the system template and the user template
 * formatted with them (a template name it lacks is the empty text; an absent name is `default`),
 * and with `structured_output` a last user message "in json format".
 */
export function generatorCalls(
  workflow: PuppyWorkflow,
  edgeId: string,
  views: Record<string, BlockView>,
): PuppyGeneratorCall[] {
  const d = workflow.edges[edgeId].data as Json;
  const structured = d['structured_output'] === true;
  const system = lookup(PUPPY_SYSTEM_PROMPTS, templateName(d['sys_prompt_template']));
  const user = lookup(PUPPY_USER_PROMPTS, templateName(d['user_prompt_template']));
  return loopedCombinations(edgeInputValues(workflow, edgeId, views)).map((combo) => {
    const query = numberedItems(fieldContents(idList(d['queries']), combo), 'Query');
    const context = numberedItems(fieldContents(idList(d['docs']), combo), 'Document');
    const messages: PuppyMessage[] = [
      { role: 'system', content: system },
      { role: 'user', content: formatTemplate(user, { context, query }) },
    ];
    if (structured) {
      messages.push({ role: 'user', content: 'in json format' });
    }
    return { messages, structured };
  });
}

/**
 * A generator edge's problems at save: `queries`/`docs` are lists of the edge's input blocks (upstream
 * leaves out an id it does not read, which hides the mistake), the template names are texts, and the
 * user template may name only `{context}` and `{query}` (`task_prompt` and `data_prompt` name fields
 * `llm_generation` never gives, so upstream fails on every run with a KeyError).
 */
export function generatorProblems(id: string, edge: PuppyEdge): GraphProblem[] {
  const problems: GraphProblem[] = [];
  const d = edge.data as Json;
  const add = (field: string, message: string, code = GraphErrorCode.MissingParam) =>
    problems.push({ code, edge: id, field, message });
  for (const key of ['queries', 'docs']) {
    const list = d[key];
    if (list === undefined) {
      continue;
    }
    if (!Array.isArray(list)) {
      add(`data.${key}`, `${key} is a list of block ids`, GraphErrorCode.InvalidDsl);
      continue;
    }
    list.forEach((blockId, i) => {
      if (typeof blockId !== 'string' || !Object.hasOwn(edge.data.inputs, blockId)) {
        add(
          `data.${key}.${i}`,
          `block "${String(blockId)}" is not an input of the edge`,
          GraphErrorCode.DanglingReference,
        );
      }
    });
  }
  for (const key of ['sys_prompt_template', 'user_prompt_template']) {
    if (d[key] !== undefined && typeof d[key] !== 'string') {
      add(`data.${key}`, `${key} is a template name`, GraphErrorCode.InvalidDsl);
    }
  }
  const user = lookup(PUPPY_USER_PROMPTS, templateName(d['user_prompt_template']));
  const unknown = [...user.matchAll(FORMAT_FIELD)].map((m) => m[1]).filter((f) => !FORMAT_VALUES.has(f));
  if (unknown.length) {
    add(
      'data.user_prompt_template',
      `the user prompt template "${String(d['user_prompt_template'])}" needs {${unknown.join('}, {')}}, which a generator edge never gives (only {context} and {query})`,
      GraphErrorCode.InvalidDsl,
    );
  }
  if (d['structured_output'] !== undefined && typeof d['structured_output'] !== 'boolean') {
    add('data.structured_output', 'structured_output is true or false', GraphErrorCode.InvalidDsl);
  }
  return problems;
}

/**
 * PuppyFlow's Generate node as its builder (`buildGenerateNodeJson`) sends it: the one query and
 * one document block it names, its prompt template as both templates (`default` when unset), the
 * model (`openai/gpt-5`), `hoster: openrouter`, `max_tokens: 2048`, `structured_output`, and
 * `base_url` when it has one.
 */
export function generateNodeEdge(
  data: Json,
  inputs: Record<string, string>,
  outputs: Record<string, string>,
): Json {
  const idOf = (v: unknown): string[] => (isRecord(v) && typeof v['id'] === 'string' ? [v['id']] : []);
  const template =
    typeof data['promptTemplate'] === 'string' && data['promptTemplate'] ? data['promptTemplate'] : 'default';
  const baseUrl = typeof data['base_url'] === 'string' ? data['base_url'] : '';
  return {
    type: 'generator',
    data: {
      queries: idOf(data['query_ids']),
      docs: idOf(data['document_ids']),
      sys_prompt_template: template,
      user_prompt_template: template,
      hoster: 'openrouter',
      model: typeof data['model'] === 'string' && data['model'] ? data['model'] : 'openai/gpt-5',
      max_tokens: 2048,
      inputs,
      outputs,
      structured_output: Boolean(data['structured_output']),
      ...(baseUrl.trim() !== '' ? { base_url: baseUrl } : {}),
    },
  };
}
