import { GraphErrorCode, GraphException, type GraphProblem, describeProblems } from '../graph.exception';
import { generateNodeEdge } from './generator';
import { loadNodeEdge } from './load';

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Data blocks of the PuppyFlow editor; `group` nodes are layout only. */
const DATA_NODES = new Set(['text', 'structured', 'file']);
const LAYOUT_NODES = new Set(['group']);

/** The editor's React-Flow shape: `{blocks: [...nodes], edges: [...connections]}`, maybe in a template package. */
export function isEditorWorkflow(raw: unknown): boolean {
  const w = isRecord(raw) && isRecord(raw['workflow']) ? raw['workflow'] : raw;
  return isRecord(w) && Array.isArray(w['blocks']) && Array.isArray(w['edges']);
}

function blockContent(type: string, data: Json): unknown {
  const content = data['content'];
  const external = data['storage_class'] === 'external' || data['isExternalStorage'] === true;
  if (external || content === undefined || content === null) {
    // External storage holds the content: nothing inline until the run mounts it.
    return null;
  }
  if (type === 'structured' && typeof content === 'string') {
    if (content.trim() === '') {
      return null;
    }
    try {
      return JSON.parse(content) as unknown;
    } catch {
      return content;
    }
  }
  return content;
}

function parseOr(text: string, fallback: unknown): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return fallback;
  }
}

function pathOf(config: unknown): unknown[] {
  return (Array.isArray(config) ? config : []).filter(isRecord).map((item) => {
    const value = item['value'];
    if (item['key'] === 'num') {
      const n = Number(value);
      return Number.isNaN(n) ? value : n;
    }
    return value;
  });
}

/** buildEditStructuredNodeJson: the node's one operation ("replace" is set_value). */
function editStructuredOperation(data: Json): Json {
  const mode = typeof data['type'] === 'string' && data['type'] ? data['type'] : 'get';
  const params =
    mode === 'get_keys' || mode === 'get_values'
      ? { max_depth: 100 }
      : {
          path: pathOf(data['getConfigData']),
          ...(mode === 'get' ? { default: 'Get Failed, value not exist' } : {}),
          ...(mode === 'replace' && data['paramv'] !== undefined ? { value: data['paramv'] } : {}),
        };
  return { type: mode === 'replace' ? 'set_value' : mode, params };
}

/** buildConvert2StructuredNodeJson: the editor's execMode → conversion_mode and its setting. */
function convert2structuredConfigs(data: Json): Json {
  const extra = isRecord(data['extra_configs']) ? data['extra_configs'] : {};
  const modes: Record<string, string> = {
    JSON: 'parse_as_json',
    'wrap into list': 'parse_as_list',
    'wrap into dict': 'wrap_into_dict',
    'split by length': 'split_by_length',
    'split by character': 'split_by_character',
  };
  const mode = modes[String(data['execMode'])] ?? 'parse_as_json';
  const out: Json = { conversion_mode: mode, action_type: data['execMode'] === 'JSON' ? 'json' : 'default' };
  if (mode === 'split_by_character' && typeof extra['list_separator'] === 'string') {
    // The editor keeps the separators as JSON text; PuppyFlow falls back to its own list when it is not.
    out['list_separator'] = parseOr(extra['list_separator'], [',', ';', '.', '\n']);
  }
  if (mode === 'split_by_length' && extra['length_separator']) {
    out['length_separator'] = extra['length_separator'];
  }
  if (mode === 'wrap_into_dict' && extra['dict_key']) {
    out['dict_key'] = extra['dict_key'];
  }
  return out;
}

/** buildEditTextNodeJson: the node's text (with its {{placeholders}}) and retMode/configNum as a slice. */
function editTextData(data: Json): Json {
  const content = data['content'];
  const text = typeof content === 'string' ? content : content ? JSON.stringify(content) : '';
  const extra = isRecord(data['extra_configs']) ? data['extra_configs'] : {};
  const mode = typeof extra['retMode'] === 'string' ? extra['retMode'] : 'return all';
  const n = typeof extra['configNum'] === 'number' ? extra['configNum'] : 100;
  const slices: Record<string, [number, number]> = {
    'return all': [0, -1],
    'return first n': [0, n],
    'return last n': [-n, -1],
    'exclude first n': [n, -1],
    'exclude last n': [0, -n],
  };
  return {
    modify_type: 'edit_text',
    extra_configs: { slice: slices[mode] ?? [0, -1], sort_type: '/' },
    content: text,
  };
}

/** buildChunkingByCharacterNodeJson: the node's delimiters, else its content's JSON list, else , ; and newline. */
function characterDelimiters(data: Json): unknown[] {
  if (Array.isArray(data['delimiters'])) {
    return data['delimiters'];
  }
  const content = data['content'];
  const parsed = typeof content === 'string' && content ? parseOr(content, undefined) : content;
  return Array.isArray(parsed) ? parsed : [',', ';', '\n'];
}

/** buildChunkingByLengthNodeJson: size (or PuppyFlow's "tokenizer") with 200/20/false as defaults. */
function lengthChunkData(data: Json): Json {
  const extra = isRecord(data['extra_configs']) ? data['extra_configs'] : {};
  const sub = data['sub_chunking_mode'] === 'tokenizer' ? 'tokenizer' : 'size';
  return {
    chunking_mode: 'length',
    sub_chunking_mode: sub,
    extra_configs: {
      chunk_size: typeof extra['chunk_size'] === 'number' ? extra['chunk_size'] : 200,
      overlap: typeof extra['overlap'] === 'number' ? extra['overlap'] : 20,
      handle_half_word: typeof extra['handle_half_word'] === 'boolean' ? extra['handle_half_word'] : false,
    },
  };
}

/** The editor's condition names → PuppyEngine's (buildIfElseNodeJson's conditionMap). */
const IFELSE_CONDITION_NAMES: Record<string, string> = {
  contains: 'contain',
  "doesn't contain": 'not_contain',
  'is greater than [N] characters': 'greater_than_n_chars',
  'is less than [N] characters': 'less_than_n_chars',
  'is empty': 'is_empty',
  'is not empty': 'is_not_empty',
  'is True': 'is',
  'is False': 'is_not',
  'is list': 'is_list',
  'is dict': 'is_dict',
  'is greater than [N]': 'greater_than_n',
  'is less than [N]': 'less_than_n',
};
const NUMERIC_CONDITIONS = new Set([
  'greater_than_n_chars',
  'less_than_n_chars',
  'greater_than_n',
  'less_than_n',
]);

/**
 * buildIfElseNodeJson: `case<i>` per editor case with a conditions list (its position kept); each
 * condition's last operation "/", numeric parameters parsed as integers (0 when not a number);
 * thens from the actions' outputs (from the action's block, else the first input), else first
 * input → first output.
 */
function ifElseCases(data: Json, firstInput: string, firstOutput: string): Json {
  const cases = Array.isArray(data['cases']) ? data['cases'] : [];
  const out: Json = {};
  cases.forEach((c: unknown, index: number) => {
    const item = isRecord(c) ? c : {};
    if (!Array.isArray(item['conditions'])) {
      return;
    }
    const list = item['conditions'] as unknown[];
    const conditions = list.map((raw, i) => {
      const cond = isRecord(raw) ? raw : {};
      const name = IFELSE_CONDITION_NAMES[String(cond['condition'])] ?? cond['condition'];
      let value: unknown = cond['cond_v'] || '';
      if (NUMERIC_CONDITIONS.has(String(name))) {
        const n = parseInt(String(cond['cond_v'] || '0'), 10);
        value = Number.isNaN(n) ? 0 : n;
      }
      return {
        block: cond['id'],
        condition: name,
        parameters: { value },
        operation: i === list.length - 1 ? '/' : String(cond['operation'] ?? '').toLowerCase(),
      };
    });
    const thens: Json[] = [];
    for (const action of Array.isArray(item['actions']) ? item['actions'] : []) {
      const a = isRecord(action) ? action : {};
      const from = a['from_id'] || firstInput;
      const targets = Array.isArray(a['outputs']) && a['outputs'].length ? a['outputs'] : [firstOutput];
      thens.push(...targets.map((to: unknown) => ({ from, to })));
    }
    if (!thens.length) {
      thens.push({ from: firstInput, to: firstOutput });
    }
    out[`case${index + 1}`] = { conditions, thens };
  });
  if (!Object.keys(out).length && cases.length) {
    out['case1'] = {
      conditions: [{ block: firstInput, condition: 'contain', parameters: { value: '' }, operation: '/' }],
      thens: [{ from: firstInput, to: firstOutput }],
    };
  }
  return out;
}

const PERPLEXITY_EDITOR_MODELS = new Set(['sonar', 'sonar-pro', 'sonar-reasoning-pro']);

/** The query block of a search node: its first input (PuppyFlow's `sourceNodes[0]`). */
function firstInput(inputs: Record<string, string>): Record<string, string> {
  const [entry] = Object.entries(inputs);
  return entry ? { [entry[0]]: entry[1] } : {};
}

/** A DeepResearch node's settings with PuppyFlow's defaults (`buildDeepResearchNodeJson`). */
function deepResearchExtra(data: Json): Json {
  const ec = isRecord(data['extra_configs']) ? data['extra_configs'] : {};
  const v = isRecord(ec['vector_search_configs']) ? ec['vector_search_configs'] : {};
  const provider = isRecord(data['modelAndProvider']) ? data['modelAndProvider']['id'] : undefined;
  return {
    model: ec['model'] || provider || 'openai/gpt-5',
    temperature: ec['temperature'] ?? 0.1,
    max_tokens: ec['max_tokens'] ?? 10000,
    max_iterations: ec['max_iterations'] ?? 3,
    vector_search_configs: {
      top_k: v['top_k'] ?? 5,
      threshold: v['threshold'] ?? 0.7,
      data_source: Array.isArray(data['dataSource']) ? data['dataSource'] : [],
    },
    google_search_configs: ec['google_search_configs'] ?? {
      enabled: true,
      sub_search_type: 'google_v2',
      top_k: 5,
      filter_unreachable_pages: true,
      firecrawl_config: {
        formats: ['markdown'],
        is_only_main_content: true,
        wait_for: 60,
        skip_tls_verification: true,
        remove_base64_images: true,
      },
    },
    perplexity_search_configs: ec['perplexity_search_configs'] ?? {
      enabled: true,
      sub_search_type: 'perplexity',
      model: 'perplexity/sonar',
      max_tokens: 4000,
      temperature: 0.1,
    },
  };
}

/**
 * Converts a PuppyFlow editor workflow (or a template package `{workflow}`) into engine JSON as
 * PuppyFlow's Run-All builders do (`buildEdgeNodeJson`): each computation node becomes one edge
 * whose `inputs` are the blocks connected into it (`STC`) and `outputs` the blocks it connects to
 * (`CTT`); data blocks keep label, type, content, looped, indexingList and the editor's
 * `isInput`/`isOutput`. Node types without a builder here throw, naming the node.
 */
export function editorToEngine(raw: unknown): Json {
  const w = (isRecord(raw) && isRecord(raw['workflow']) ? raw['workflow'] : raw) as Json;
  const nodes = (w['blocks'] as unknown[]).filter(isRecord);
  const connections = (w['edges'] as unknown[]).filter(isRecord);
  const problems: GraphProblem[] = [];
  const byId = new Map(nodes.map((n) => [String(n['id']), n]));
  const labelOf = (id: string) => {
    const data = byId.get(id)?.['data'];
    return isRecord(data) && typeof data['label'] === 'string' && data['label'] ? data['label'] : id;
  };
  const blocks: Json = {};
  const edges: Json = {};
  for (const node of nodes) {
    const id = String(node['id']);
    const type = String(node['type']);
    const data = isRecord(node['data']) ? node['data'] : {};
    if (LAYOUT_NODES.has(type)) {
      continue;
    }
    if (DATA_NODES.has(type)) {
      blocks[id] = {
        label: labelOf(id),
        type,
        data: {
          content: blockContent(type, data),
          ...(type === 'structured'
            ? { indexingList: Array.isArray(data['indexingList']) ? data['indexingList'] : [] }
            : {}),
        },
        looped: data['looped'] === true || node['looped'] === true,
        ...(data['isInput'] === true ? { isInput: true } : {}),
        ...(data['isOutput'] === true ? { isOutput: true } : {}),
      };
      continue;
    }
    const sources = connections.filter((c) => c['target'] === id && byId.has(String(c['source'])));
    const targets = connections.filter((c) => c['source'] === id && byId.has(String(c['target'])));
    const inputs = Object.fromEntries(
      sources.map((c) => [String(c['source']), labelOf(String(c['source']))]),
    );
    const outputs = Object.fromEntries(
      targets.map((c) => [String(c['target']), labelOf(String(c['target']))]),
    );
    const first = Object.values(inputs)[0] ?? Object.keys(inputs)[0] ?? '';
    const modifyEdge = (modifyType: string, label: string, extra: Json): Json => ({
      type: 'modify',
      data: { content: `{{${label}}}`, modify_type: modifyType, extra_configs: extra, inputs, outputs },
    });
    switch (type) {
      case 'llmnew': {
        const content = typeof data['content'] === 'string' ? parseOr(data['content'], []) : data['content'];
        const messages = (Array.isArray(content) ? content : [])
          .filter(isRecord)
          .filter((m) => m['role'] === 'system' || m['role'] === 'user');
        const model = isRecord(data['modelAndProvider']) ? data['modelAndProvider']['id'] : undefined;
        edges[id] = {
          type: 'llm',
          data: {
            messages,
            // PuppyFlow sends the messages twice: as the history and as the messages.
            chat_histories: messages,
            model: typeof model === 'string' ? model : 'openai/gpt-5',
            base_url: typeof data['base_url'] === 'string' ? data['base_url'] : '',
            max_tokens: typeof data['max_tokens'] === 'number' ? data['max_tokens'] : 128000,
            temperature: 0.7,
            inputs,
            structured_output: data['structured_output'] === true,
            outputs,
          },
        };
        break;
      }
      case 'retrieving': {
        const query = isRecord(data['query_id']) ? data['query_id'] : {};
        const extra = isRecord(data['extra_configs']) ? data['extra_configs'] : {};
        edges[id] = {
          type: 'search',
          data: {
            search_type: 'vector',
            top_k: typeof data['top_k'] === 'number' ? data['top_k'] : 5,
            inputs,
            threshold: typeof extra['threshold'] === 'number' ? extra['threshold'] : 0.7,
            extra_configs: { provider: 'openai', model: 'text-embedding-ada-002', db_type: 'pgvector' },
            query_id:
              typeof query['id'] === 'string' && typeof query['label'] === 'string'
                ? { [query['id']]: query['label'] }
                : {},
            data_source: Array.isArray(data['dataSource']) ? data['dataSource'] : [],
            outputs,
          },
        };
        break;
      }
      case 'editStructured':
        edges[id] = modifyEdge('edit_structured', first, { operations: [editStructuredOperation(data)] });
        break;
      case 'convert2structured':
        edges[id] = modifyEdge('convert2structured', first, convert2structuredConfigs(data));
        break;
      case 'editText':
        edges[id] = { type: 'modify', data: { ...editTextData(data), inputs, outputs } };
        break;
      case 'chunkingAuto':
        // PuppyFlow sends model/chunk_size/overlap/handle_half_word as undefined: JSON drops them.
        edges[id] = { type: 'chunk', data: { chunking_mode: 'auto', extra_configs: {}, inputs, outputs } };
        break;
      case 'chunkingByCharacter':
        edges[id] = {
          type: 'chunk',
          data: {
            chunking_mode: 'character',
            sub_chunking_mode: 'character',
            extra_configs: { delimiters: characterDelimiters(data) },
            inputs,
            outputs,
          },
        };
        break;
      case 'searchGoogle':
        edges[id] = {
          type: 'search',
          data: {
            search_type: 'web',
            sub_search_type: 'google',
            top_k: typeof data['top_k'] === 'number' ? data['top_k'] : 5,
            inputs,
            query_id: firstInput(inputs),
            extra_configs: {},
            outputs,
          },
        };
        break;
      case 'searchPerplexity': {
        const extra = isRecord(data['extra_configs']) ? data['extra_configs'] : {};
        const model = PERPLEXITY_EDITOR_MODELS.has(String(extra['model']))
          ? String(extra['model'])
          : 'sonar-pro';
        edges[id] = {
          type: 'search',
          data: {
            search_type: 'qa',
            sub_search_type: 'perplexity',
            inputs,
            query_id: firstInput(inputs),
            extra_configs: { model: { [model]: {} } },
            outputs,
          },
        };
        break;
      }
      case 'deepresearch': {
        if (!Object.keys(inputs).length) {
          problems.push({
            code: GraphErrorCode.MissingParam,
            edge: id,
            field: 'inputs',
            message: 'DeepResearch node requires at least one source node for query content',
          });
          break;
        }
        edges[id] = {
          type: 'deep_research',
          data: { query: `{{${first}}}`, extra_configs: deepResearchExtra(data), inputs, outputs },
        };
        break;
      }
      case 'chunkingByLength':
        edges[id] = { type: 'chunk', data: { ...lengthChunkData(data), inputs, outputs } };
        break;
      case 'ifelse':
        edges[id] = {
          type: 'ifelse',
          data: {
            cases: ifElseCases(data, Object.keys(inputs)[0] ?? '', Object.keys(outputs)[0] ?? ''),
            inputs,
            outputs,
          },
        };
        break;
      case 'copy':
      case 'convert2text':
        edges[id] = {
          type: 'modify',
          data: { content: `{{${first}}}`, modify_type: type, extra_configs: {}, inputs, outputs },
        };
        break;
      case 'generate':
        edges[id] = generateNodeEdge(data, inputs, outputs);
        break;
      case 'load': {
        const source = Object.keys(inputs)[0];
        if (source === undefined) {
          problems.push({
            code: GraphErrorCode.MissingParam,
            edge: id,
            field: 'inputs',
            message: 'a load node needs a source block (PuppyFlow refuses it too)',
          });
          break;
        }
        const sourceData = byId.get(source)?.['data'];
        edges[id] = loadNodeEdge(source, isRecord(sourceData) ? sourceData : {}, inputs, outputs);
        break;
      }
      default:
        problems.push({
          code: GraphErrorCode.UnknownComponent,
          edge: id,
          field: 'type',
          message: `the editor node type "${type}" is not converted by this runtime`,
        });
    }
  }
  if (problems.length) {
    throw new GraphException(problems[0].code, describeProblems(problems), problems);
  }
  return { blocks, edges };
}
