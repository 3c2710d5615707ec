import { type CollectionConfigs, type IndexStatus, type RunErrorCodes } from '@switchyard/contracts';
import type { DataSourceRef } from './schemas';

/** One entry of a collection block's `indexingList`. */
export interface IndexingItem {
  index_name: string;
  status: IndexStatus;
  error?: string | null;
  collection_configs: Partial<CollectionConfigs>;
}

/** A vector-collection block (a collection): the single source of truth of its index sets. */
export interface CollectionBlock {
  id: string;
  name: string;
  indexingList: IndexingItem[];
}

export type ResolvedVia = 'index_name' | 'fallback' | 'legacy';

/** A data source with its index item filled in at run time. */
export interface ResolvedDataSource {
  id: string;
  label?: string;
  index_name: string;
  collection_configs: Partial<CollectionConfigs>;
  via: ResolvedVia;
}

export type ResolutionErrorCode = RunErrorCodes<'unknown_block' | 'no_index_set'>;

export class ResolutionError extends Error {
  readonly retryable = false;
  constructor(
    readonly code: ResolutionErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ResolutionError';
  }
}

/** Legacy data sources embed the block's configs; only a named collection counts as embedded. */
function embeddedConfigs(ds: DataSourceRef): Partial<CollectionConfigs> | undefined {
  const configs = ds.index_item?.collection_configs;
  return configs && typeof configs.collection_name === 'string' && configs.collection_name.length > 0
    ? configs
    : undefined;
}

/**
 * Runtime resolution (seed 000): the block named by `ds.id` is the source of truth.
 * 1. the block's index set named `index_item.index_name`;
 * 2. otherwise a legacy data source's embedded `collection_configs`, as is;
 * 3. otherwise the block's first index set with status `done`.
 * An unknown block (with nothing legacy to fall back on) or a block with no usable index set is
 * a ResolutionError naming what was asked and what exists.
 */
export function resolveDataSource(ds: DataSourceRef, block: CollectionBlock | undefined): ResolvedDataSource {
  const requested = ds.index_item?.index_name || undefined;
  const base = { id: ds.id, ...(ds.label !== undefined ? { label: ds.label } : {}) };

  if (block && requested) {
    const item = block.indexingList.find((i) => i.index_name === requested);
    if (item) {
      return {
        ...base,
        index_name: item.index_name,
        collection_configs: item.collection_configs,
        via: 'index_name',
      };
    }
  }
  const legacy = embeddedConfigs(ds);
  if (legacy) {
    return {
      ...base,
      index_name: requested ?? legacy.collection_name ?? '',
      collection_configs: legacy,
      via: 'legacy',
    };
  }
  if (!block) {
    throw new ResolutionError('unknown_block', `unknown knowledge collection (block) "${ds.id}"`);
  }
  const done = block.indexingList.find((i) => i.status === 'done');
  if (done) {
    return {
      ...base,
      index_name: done.index_name,
      collection_configs: done.collection_configs,
      via: 'fallback',
    };
  }
  const names = block.indexingList.map((i) => `${i.index_name} (${i.status})`).join(', ') || 'none';
  throw new ResolutionError(
    'no_index_set',
    `collection "${block.id}" has ${requested ? `no index set "${requested}" and ` : ''}no index set with status done (index sets: ${names})`,
  );
}

/** Resolves every data source against the blocks found (by id); the first failure throws. */
export function resolveDataSources(
  sources: readonly DataSourceRef[],
  blocks: ReadonlyMap<string, CollectionBlock>,
): ResolvedDataSource[] {
  return sources.map((ds) => resolveDataSource(ds, blocks.get(ds.id)));
}

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

// PuppyFlow's indexing statuses (notStarted, processing, done, error) as the store's.
const statusOf = (s: unknown): IndexStatus =>
  s === 'done' ? 'done' : s === 'error' || s === 'failed' ? 'failed' : 'pending';

/**
 * A PuppyEngine workflow block as the resolution reads a collection: its `indexingList` is the
 * source of truth (index names, statuses, `collection_configs`).
 */
export function workflowCollectionBlock(
  id: string,
  block: { label?: unknown; data?: { indexingList?: unknown } },
): CollectionBlock {
  const list = block.data?.indexingList;
  const items = Array.isArray(list) ? list.filter(isRecord) : [];
  return {
    id,
    name: typeof block.label === 'string' ? block.label : id,
    indexingList: items.map((item) => ({
      index_name: typeof item['index_name'] === 'string' ? item['index_name'] : '',
      status: statusOf(item['status']),
      collection_configs: isRecord(item['collection_configs']) ? item['collection_configs'] : {},
    })),
  };
}
