import { GraphErrorCode, GraphException, type GraphProblem } from '../graph.exception';
import { pyStr, pyTruthy } from '../py-value';
import { edgeInputValues } from './edge-run';
import type { BlockView } from './scheduler';
import type { PuppyEdge, PuppyWorkflow } from './workflow.schema';

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The load strategies this runtime runs (`LoaderFactory._strategies` without the fetching ones). */
export const LOAD_BLOCK_TYPES = ['text', 'structured', 'file'] as const;
export type LoadBlockType = (typeof LOAD_BLOCK_TYPES)[number];
/** Strategies that fetch from outside the run: a web page (firecrawl) or a database. */
const FETCHING_BLOCK_TYPES = new Set(['weblink', 'database']);

const STRATEGY_NAMES: Record<LoadBlockType, string> = {
  text: 'TextLoadStrategy',
  structured: 'StructuredLoadStrategy',
  file: 'FileLoadStrategy',
};

// Utils/file_type.py: the normalized types, MIME and extension maps, in its order.
const VALID_FILE_TYPES = new Set([
  'json',
  'txt',
  'markdown',
  'pdf',
  'doc',
  'csv',
  'xlsx',
  'image',
  'audio',
  'video',
  'application',
]);
const MIME_FILE_TYPES: Record<string, string> = {
  'application/json': 'json',
  'text/plain': 'txt',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'application/pdf': 'pdf',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'doc',
  'text/csv': 'csv',
  'application/csv': 'csv',
  'application/vnd.ms-excel': 'xlsx',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'application/vnd.ms-excel.sheet.macroenabled.12': 'xlsx',
  'application/vnd.oasis.opendocument.spreadsheet': 'xlsx',
};
const EXTENSION_FILE_TYPES: [string, string][] = [
  ['.json', 'json'],
  ['.txt', 'txt'],
  ['.md', 'markdown'],
  ['.markdown', 'markdown'],
  ['.mdx', 'markdown'],
  ['.pdf', 'pdf'],
  ['.doc', 'doc'],
  ['.docx', 'doc'],
  ['.csv', 'csv'],
  ['.xlsx', 'xlsx'],
  ['.xls', 'xlsx'],
  ['.xlsm', 'xlsx'],
  ['.xlsb', 'xlsx'],
  ['.ods', 'xlsx'],
  ['.jpg', 'image'],
  ['.jpeg', 'image'],
  ['.png', 'image'],
  ['.gif', 'image'],
  ['.webp', 'image'],
  ['.mp3', 'audio'],
  ['.wav', 'audio'],
  ['.m4a', 'audio'],
  ['.flac', 'audio'],
  ['.mp4', 'video'],
  ['.avi', 'video'],
  ['.mov', 'video'],
  ['.mkv', 'video'],
  ['.webm', 'video'],
];

/**
 * PuppyEngine's `decide_file_type`: the entry's own `file_type` when it is a normalized type, else
 * the MIME type's, else the first extension (in the map's order) the name ends with, else
 * `application`.
 */
export function decideFileType(fileType: string, mimeType: string, name: string): string {
  const t = fileType.trim().toLowerCase();
  if (t && VALID_FILE_TYPES.has(t)) {
    return t;
  }
  const m = mimeType.toLowerCase();
  if (m && Object.hasOwn(MIME_FILE_TYPES, m)) {
    return MIME_FILE_TYPES[m];
  }
  const n = name.toLowerCase();
  return (n && EXTENSION_FILE_TYPES.find(([ext]) => n.endsWith(ext))?.[1]) || 'application';
}

/** A tenant file a file block names: `{id | file_id, name?, file_type?, mime_type?}`. */
export interface LoadFileRef {
  id: string;
  name?: string;
  fileType?: string;
  mimeType?: string;
}

/** What a load edge does: the strategy, the block it reads, and the contents it loads one by one. */
export interface LoadPlan {
  blockType: LoadBlockType;
  blockId: string;
  /** The block is looped: the edge writes the list of its results, even of one. */
  loop: boolean;
  items: unknown[];
}

/**
 * `LoadConfigParser` (`_prase_single_block_content`): the edge's one input block; looped with a
 * list or object content, each item (as Python `str()`; an object's entries as `str({k: v})`) is
 * loaded on its own. The edge is a loop whenever the block is looped, so it then writes a list.
 */
export function loadPlan(
  workflow: PuppyWorkflow,
  edgeId: string,
  views: Record<string, BlockView>,
): LoadPlan {
  const d = workflow.edges[edgeId].data as Json;
  const [input] = edgeInputValues(workflow, edgeId, views);
  const c = input.content;
  const items =
    input.looped && c !== null && typeof c === 'object'
      ? Array.isArray(c)
        ? c.map((x) => pyStr(x))
        : Object.entries(c as Json).map(([k, v]) => pyStr({ [k]: v }))
      : [c];
  return { blockType: d['block_type'] as LoadBlockType, blockId: input.blockId, loop: input.looped, items };
}

const loadFailure = (blockId: string, message: string): never => {
  throw new GraphException(GraphErrorCode.ComponentFailed, `block ${blockId}: ${message}`);
};

/** `validate_content`: an empty content (Python falsy: "", [], {}, 0, None) fails the strategy. */
export function loadedContent(plan: LoadPlan, item: unknown): unknown {
  if (!pyTruthy(item)) {
    loadFailure(plan.blockId, `Empty ${STRATEGY_NAMES[plan.blockType]} Content: the block it loads is empty`);
  }
  return item;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

function fileRefOf(entry: Json): LoadFileRef | undefined {
  const id = text(entry['id']) ?? text(entry['file_id']);
  if (!id) {
    return undefined;
  }
  const name = text(entry['name']) ?? text(entry['file_name']) ?? text(entry['fileName']);
  const fileType = text(entry['file_type']) ?? text(entry['fileType']);
  const mimeType = text(entry['mime_type']);
  return {
    id,
    ...(name ? { name } : {}),
    ...(fileType ? { fileType } : {}),
    ...(mimeType ? { mimeType } : {}),
  };
}

/**
 * The files a file block's content names (`FileLoadStrategy`): a list of file entries, or
 * `{type: "files", files: [...]}`, or — as a Begin form gives one (docs/adr/0016) — a single
 * `{id, name?}`. Entries name tenant files by `id` or `file_id`; one without either is skipped,
 * as upstream skips an entry without a local path. No file left fails the edge, naming the block.
 */
export function fileRefs(plan: LoadPlan, item: unknown): LoadFileRef[] {
  loadedContent(plan, item);
  const entries = Array.isArray(item)
    ? item.every(isRecord)
      ? item
      : undefined
    : isRecord(item) && item['type'] === 'files'
      ? Array.isArray(item['files'])
        ? item['files'].filter(isRecord)
        : []
      : isRecord(item) && fileRefOf(item)
        ? [item]
        : undefined;
  if (!entries) {
    return loadFailure(
      plan.blockId,
      'a file block holds tenant files: a list of {id | file_id, name?}, or {type: "files", files: [...]}',
    );
  }
  const refs = entries.map(fileRefOf).filter((r): r is LoadFileRef => r !== undefined);
  if (!refs.length) {
    loadFailure(plan.blockId, 'no entry of the block names a tenant file (id or file_id)');
  }
  return refs;
}

/** What a load edge writes: the list of its results when looped, else its one result, to every output. */
export function loadedBlocks(
  workflow: PuppyWorkflow,
  edgeId: string,
  plan: LoadPlan,
  results: unknown[],
): Json {
  const value = plan.loop ? results : results[0];
  return Object.fromEntries(Object.keys(workflow.edges[edgeId].data.outputs).map((id) => [id, value]));
}

/** Why a file entry of a saved workflow cannot be read here (undefined: it names a tenant file). */
function storageEntryProblem(entry: unknown): string | undefined {
  if (isRecord(entry) && fileRefOf(entry)) {
    return undefined;
  }
  return (
    'a file entry names a tenant file ({id | file_id, name?}, from POST /v1/files); PuppyStorage entries ' +
    '(task_id, download_url, local_path) are not fetched here: leave the block empty and give its files in the run’s inputs'
  );
}

/**
 * A load edge's problems at save: a `block_type` this runtime loads (weblink and database need a
 * fetch from outside the run, not done here), exactly one input block (upstream reads the first of
 * a set, so with more the block it loads is arbitrary), no `default_parse_config` (the parsers here
 * take no options), and for a file load a block that is not looped (upstream would load each entry
 * as text and fail) whose own entries name tenant files.
 */
export function loadProblems(workflow: PuppyWorkflow, id: string, edge: PuppyEdge): GraphProblem[] {
  const problems: GraphProblem[] = [];
  const d = edge.data as Json;
  const add = (field: string, message: string, code = GraphErrorCode.MissingParam) =>
    problems.push({ code, edge: id, field, message });
  const type = d['block_type'];
  if (FETCHING_BLOCK_TYPES.has(String(type))) {
    add(
      'data.block_type',
      `a ${String(type)} load fetches from outside the run, which this runtime does not do (it loads text, structured and file blocks)`,
      GraphErrorCode.UnknownComponent,
    );
  } else if (!LOAD_BLOCK_TYPES.includes(type as LoadBlockType)) {
    add('data.block_type', `unknown block_type "${String(type)}" (one of ${LOAD_BLOCK_TYPES.join(', ')})`);
  }
  const inputs = Object.keys(edge.data.inputs);
  if (inputs.length !== 1) {
    add(
      'data.inputs',
      `a load edge reads exactly one block (it reads ${inputs.length})`,
      GraphErrorCode.InvalidDsl,
    );
  }
  const extra = isRecord(d['extra_configs']) ? d['extra_configs'] : {};
  const parse = extra['default_parse_config'];
  if (parse !== undefined && !(isRecord(parse) && Object.keys(parse).length === 0)) {
    add(
      'data.extra_configs.default_parse_config',
      'parse options are not supported by this runtime (files are read with their type’s defaults)',
      GraphErrorCode.UnknownComponent,
    );
  }
  const block = inputs.length === 1 ? workflow.blocks[inputs[0]] : undefined;
  if (type === 'file' && block) {
    if (block.looped === true) {
      add(
        'data.inputs',
        `block "${inputs[0]}" is looped: a file load reads the block's files at once (upstream fails on each entry)`,
        GraphErrorCode.InvalidDsl,
      );
    }
    const c = block.data.content;
    const entries = Array.isArray(c)
      ? c
      : isRecord(c) && c['type'] === 'files' && Array.isArray(c['files'])
        ? c['files']
        : isRecord(c)
          ? [c]
          : [];
    entries.forEach((entry, i) => {
      const problem = storageEntryProblem(entry);
      if (problem) {
        const at = Array.isArray(c) ? `${i}` : isRecord(c) && c['type'] === 'files' ? `files.${i}` : '';
        // Named by the block (the gateway reports dsl.blocks.<block>.data.content…).
        problems.push({
          code: GraphErrorCode.UnknownComponent,
          block: inputs[0],
          field: `data.content${at ? `.${at}` : ''}`,
          message: `read by load edge ${id}: ${problem}`,
        });
      }
    });
  }
  return problems;
}

/**
 * PuppyFlow's Load node as its builder (`buildLoadNodeJson`) sends it: always a file load of its
 * first source block, `content` = that block's id, and `extra_configs.file_configs` listing the
 * block's files by storage key (`task_id`, when the block has `external_metadata.resource_key`) or
 * else by `download_url`, with their `fileType`. PuppyEngine reads neither `content` nor
 * `file_configs` (the block's resolved content is the source of truth); they are kept as sent.
 */
export function loadNodeEdge(
  sourceId: string,
  source: Json,
  inputs: Record<string, string>,
  outputs: Record<string, string>,
): Json {
  const external = isRecord(source['external_metadata']) ? source['external_metadata'] : undefined;
  const files = Array.isArray(source['content']) ? source['content'].filter(isRecord) : [];
  const key = external?.['resource_key'] && Array.isArray(source['content']) ? 'task_id' : 'download_url';
  const fileConfigs = files
    .filter((f) => pyTruthy(f[key]))
    .map((f) => ({ file_path: f[key], file_type: f['fileType'] }));
  return {
    type: 'load',
    data: {
      block_type: 'file',
      content: sourceId,
      extra_configs: { file_configs: fileConfigs },
      inputs,
      outputs,
    },
  };
}
