import { createHash } from 'node:crypto';
import { editorToEngine, isEditorWorkflow } from './editor';

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One entry of a vector-collection block: the text embedded and what a search hit returns. */
export interface CollectionEntry {
  text: string;
  metadata: { id: number; retrieval_content: unknown } & Json;
}

/**
 * A vector-collection block's index set to instantiate into a tenant collection: its entries (the
 * item's `entries`, else the block's list content cut by the item's `key_path`/`value_path`, as
 * PuppyFlow's `VectorIndexing.extractEntries`), the embedding model, and where it goes back.
 */
export interface CollectionSpec {
  blockId: string;
  /** Its `indexingList` position; -1 for a legacy block whose `collection_configs` sit on the block. */
  item: number;
  /** The block's index set name after instantiation (the item's own, else the block id). */
  index_name: string;
  model: string;
  entries: CollectionEntry[];
  /** Names the collection by block and content: the same entries and model reuse it, edited ones re-index. */
  name: string;
}

/** Where an index set's vectors live, as the block keeps it (seed 000's `collection_configs`). */
export interface FilledConfigs {
  collection_name: string;
  set_name: string;
  model: string;
  vdb_type: string;
  user_id: string;
}

interface PathSegment {
  type?: unknown;
  value?: unknown;
}

/** PuppyFlow's `getByPath`: `key` segments index objects, `num` segments lists. */
function byPath(value: unknown, path: unknown): unknown {
  let current = value;
  for (const seg of (Array.isArray(path) ? path : []).filter(isRecord) as PathSegment[]) {
    if (current === null || current === undefined) {
      return undefined;
    }
    const key = seg.type === 'num' ? Number.parseInt(String(seg.value), 10) : String(seg.value);
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

const stringify = (v: unknown): string =>
  v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v);

function listContent(content: unknown): unknown[] {
  if (Array.isArray(content)) {
    return content;
  }
  if (typeof content === 'string' && content.trim().startsWith('[')) {
    try {
      const parsed = JSON.parse(content) as unknown;
      return Array.isArray(parsed) ? parsed : [];
    } catch {
      return [];
    }
  }
  return [];
}

function entriesOf(item: Json, content: unknown): CollectionEntry[] {
  const given = Array.isArray(item['entries']) ? item['entries'] : [];
  const entries: CollectionEntry[] = given.length
    ? given.map((e, i) => {
        const entry: Json = isRecord(e) ? e : { content: e };
        const metadata = isRecord(entry['metadata']) ? entry['metadata'] : {};
        return {
          text: stringify(entry['content']),
          metadata: {
            ...metadata,
            id: typeof metadata['id'] === 'number' ? metadata['id'] : i,
            retrieval_content:
              'retrieval_content' in metadata ? metadata['retrieval_content'] : entry['content'],
          },
        };
      })
    : listContent(content).map((value, i) => ({
        text: stringify(byPath(value, item['key_path'])),
        metadata: { id: i, retrieval_content: byPath(value, item['value_path']) ?? null },
      }));
  // An entry whose key path finds nothing has no text to embed: it cannot be found, so it is left out.
  return entries.filter((e) => e.text.trim() !== '');
}

function specName(blockId: string, model: string, entries: readonly CollectionEntry[]): string {
  const hash = createHash('sha256').update(JSON.stringify({ model, entries })).digest('hex').slice(0, 16);
  return `puppy ${blockId.slice(0, 120)} ${hash}`;
}

function engineForm(raw: unknown): Json | undefined {
  try {
    const engine = isEditorWorkflow(raw) ? editorToEngine(raw) : raw;
    return isRecord(engine) && isRecord(engine['blocks']) ? engine : undefined;
  } catch {
    // Validation reports what does not convert.
    return undefined;
  }
}

/**
 * The vector-collection blocks of a PuppyEngine workflow (engine or editor form) that hold entries
 * to index — what PuppyFlow's template loader (`processVectorCollection`) embeds. A block without
 * entries or list content is left as it is (a search naming it then fails, naming it).
 */
export function collectionSpecs(raw: unknown, defaultModel: string): CollectionSpec[] {
  const engine = engineForm(raw);
  if (!engine) {
    return [];
  }
  const specs: CollectionSpec[] = [];
  for (const [blockId, block] of Object.entries(engine['blocks'] as Json)) {
    if (!isRecord(block)) {
      continue;
    }
    const data = isRecord(block['data']) ? block['data'] : {};
    const items = Array.isArray(data['indexingList']) ? data['indexingList'] : [];
    items.forEach((item, i) => {
      if (!isRecord(item) || (item['type'] !== undefined && item['type'] !== 'vector')) {
        return;
      }
      const entries = entriesOf(item, data['content']);
      if (!entries.length) {
        return;
      }
      const cc = isRecord(item['collection_configs']) ? item['collection_configs'] : {};
      const model = typeof cc['model'] === 'string' && cc['model'] ? cc['model'] : defaultModel;
      const given = typeof item['index_name'] === 'string' ? item['index_name'] : '';
      specs.push({
        blockId,
        item: i,
        index_name: given || blockId,
        model,
        entries,
        name: specName(blockId, model, entries),
      });
    });
    // The older engine form: the block's configs in a list beside its data, its content the entries.
    const legacy = Array.isArray(block['collection_configs'])
      ? block['collection_configs'].filter(isRecord)
      : [];
    if (!items.length && legacy.length && typeof legacy[0]['collection_name'] === 'string') {
      const entries = entriesOf({}, data['content']);
      const model =
        typeof legacy[0]['model'] === 'string' && legacy[0]['model'] ? legacy[0]['model'] : defaultModel;
      if (entries.length) {
        specs.push({
          blockId,
          item: -1,
          index_name: legacy[0]['collection_name'] || blockId,
          model,
          entries,
          name: specName(blockId, model, entries),
        });
      }
    }
  }
  return specs;
}

/** The mutable parts of a raw workflow: data blocks' `data` by id, search edges' data sources. */
function rawParts(raw: Json): { blocks: Map<string, Json>; sources: Json[][] } {
  const blocks = new Map<string, Json>();
  const sources: Json[][] = [];
  const w = isRecord(raw['workflow']) ? raw['workflow'] : raw;
  const nodes = Array.isArray(w['blocks'])
    ? (w['blocks'] as unknown[]).filter(isRecord).map((n) => [String(n['id']), n] as const)
    : Object.entries(isRecord(w['blocks']) ? w['blocks'] : {}).filter((e): e is [string, Json] =>
        isRecord(e[1]),
      );
  const edges = Array.isArray(w['blocks'])
    ? nodes.filter(([, n]) => n['type'] === 'retrieving').map(([, n]) => n)
    : Object.values(isRecord(w['edges']) ? w['edges'] : {}).filter(
        (e): e is Json => isRecord(e) && e['type'] === 'search',
      );
  for (const [id, node] of nodes) {
    if (!isRecord(node['data'])) {
      node['data'] = {};
    }
    blocks.set(id, node['data'] as Json);
  }
  for (const edge of edges) {
    const data = isRecord(edge['data']) ? edge['data'] : {};
    const list = Array.isArray(data['data_source'])
      ? data['data_source']
      : Array.isArray(data['dataSource'])
        ? data['dataSource']
        : [];
    sources.push(list.filter(isRecord));
  }
  return { blocks, sources };
}

/**
 * The workflow (a copy) with each instantiated block's index set named and every data source that
 * references the block without an index name given that name — PuppyFlow's `syncIndexNameToEdges`,
 * index name only: the configs stay in the block (a legacy data source's embedded configs stay
 * too, but the index name found in the block wins when the search resolves).
 */
export function withIndexNames<T>(raw: T, specs: readonly CollectionSpec[]): T {
  if (!specs.length || !isRecord(raw)) {
    return raw;
  }
  const copy = structuredClone(raw) as Json;
  const { blocks, sources } = rawParts(copy);
  for (const spec of specs) {
    const data = blocks.get(spec.blockId);
    const item =
      data && spec.item >= 0 && Array.isArray(data['indexingList'])
        ? data['indexingList'][spec.item]
        : undefined;
    if (isRecord(item) && !item['index_name']) {
      item['index_name'] = spec.index_name;
    }
  }
  for (const list of sources) {
    for (const ds of list) {
      const spec = specs.find((s) => s.blockId === ds['id']);
      if (!spec) {
        continue;
      }
      const item = isRecord(ds['index_item']) ? ds['index_item'] : (ds['index_item'] = {});
      // Also over embedded legacy configs: they name PuppyEngine's store, the block names ours.
      if (!item['index_name']) {
        item['index_name'] = spec.index_name;
      }
    }
  }
  return copy as T;
}

/**
 * The workflow (a copy) with each instantiated index set's `collection_configs` filled in its block
 * and its status `done` — the block is the single source of truth: data sources keep no copy. A
 * legacy block gets an `indexingList` holding its index set.
 */
export function withCollectionConfigs<T>(
  raw: T,
  filled: readonly { spec: CollectionSpec; configs: FilledConfigs }[],
): T {
  if (!filled.length || !isRecord(raw)) {
    return raw;
  }
  const copy = structuredClone(raw) as Json;
  const { blocks } = rawParts(copy);
  for (const { spec, configs } of filled) {
    const data = blocks.get(spec.blockId);
    if (!data) {
      continue;
    }
    if (spec.item < 0) {
      data['indexingList'] = [
        { type: 'vector', index_name: spec.index_name, status: 'done', collection_configs: configs },
      ];
      continue;
    }
    const item = Array.isArray(data['indexingList']) ? data['indexingList'][spec.item] : undefined;
    if (isRecord(item)) {
      item['index_name'] = item['index_name'] || spec.index_name;
      item['status'] = 'done';
      item['collection_configs'] = configs;
    }
  }
  return copy as T;
}

/** A data source a vector search reads: the edge, where in it, and the reference. */
export interface VectorSourceRef {
  edge: string;
  field: string;
  source: { id: string; label?: string; index_item?: { index_name?: string; collection_configs?: Json } };
}

/**
 * Every data source a workflow's vector searches read: `search` edges of type vector
 * (`data.data_source`) and deep research's (`data.extra_configs.vector_search_configs.data_source`,
 * the enabled ones).
 */
export function vectorSourceRefs(workflow: {
  edges: Record<string, { type: string; data: unknown }>;
}): VectorSourceRef[] {
  const refs: VectorSourceRef[] = [];
  for (const [edge, e] of Object.entries(workflow.edges)) {
    const d = isRecord(e.data) ? e.data : {};
    let list: unknown[] = [];
    let at = '';
    if (e.type === 'search' && d['search_type'] === 'vector') {
      list = Array.isArray(d['data_source']) ? d['data_source'] : [];
      at = 'data.data_source';
    } else if (e.type === 'deep_research') {
      const extra = isRecord(d['extra_configs']) ? d['extra_configs'] : {};
      const v = isRecord(extra['vector_search_configs']) ? extra['vector_search_configs'] : {};
      list = Array.isArray(v['data_source']) ? v['data_source'] : [];
      at = 'data.extra_configs.vector_search_configs.data_source';
    }
    list.forEach((s, i) => {
      if (!isRecord(s)) {
        return;
      }
      const item = isRecord(s['index_item']) ? s['index_item'] : {};
      const cc = isRecord(item['collection_configs']) ? item['collection_configs'] : {};
      if (cc['enabled'] === false) {
        return;
      }
      refs.push({ edge, field: `${at}.${i}`, source: s as VectorSourceRef['source'] });
    });
  }
  return refs;
}
