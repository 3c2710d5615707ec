import {
  type CollectionBlock,
  type IndexingItem,
  ResolutionError,
  type ResolvedVia,
  resolveDataSource,
  resolveDataSources,
} from './resolution';
import { type DataSourceRef, DataSourceRefSchema, RetrievalArgsSchema } from './schemas';

const configs = (name: string) => ({
  collection_name: `collection_${name}`,
  set_name: `set_${name}`,
  model: 'hash-embedding-v1',
  vdb_type: 'postgres-exact',
  user_id: 'tenant-1',
});
const item = (name: string, status: IndexingItem['status'] = 'done'): IndexingItem => ({
  index_name: name,
  status,
  collection_configs: configs(name),
});
const block = (id: string, ...items: IndexingItem[]): CollectionBlock => ({
  id,
  name: `kb ${id}`,
  indexingList: items,
});

const KB = block('WzK6iT', item('collection_1'), item('collection_2'));
const PENDING_FIRST = block('pend', item('fresh', 'pending'), item('failed', 'failed'), item('ready'));
const NOTHING_DONE = block('none', item('a', 'pending'), item('b', 'failed'));
const EMPTY = block('empty');
const LEGACY = {
  collection_name: 'collection_WzK6iT_1730457600000',
  set_name: 'collection_WzK6iT_1730457600000',
};

describe(resolveDataSource.name, () => {
  it.each<[string, DataSourceRef, CollectionBlock | undefined, ResolvedVia, string, string]>([
    // name, data source, block, via, index_name, collection_name
    [
      'the named index set',
      { id: 'WzK6iT', index_item: { index_name: 'collection_1' } },
      KB,
      'index_name',
      'collection_1',
      'collection_collection_1',
    ],
    [
      'another named index set',
      { id: 'WzK6iT', index_item: { index_name: 'collection_2' } },
      KB,
      'index_name',
      'collection_2',
      'collection_collection_2',
    ],
    [
      'a named set even when not done',
      { id: 'pend', index_item: { index_name: 'fresh' } },
      PENDING_FIRST,
      'index_name',
      'fresh',
      'collection_fresh',
    ],
    [
      'no index_item → the first done set',
      { id: 'WzK6iT' },
      KB,
      'fallback',
      'collection_1',
      'collection_collection_1',
    ],
    [
      'an empty index_item → the first done set',
      { id: 'WzK6iT', index_item: {} },
      KB,
      'fallback',
      'collection_1',
      'collection_collection_1',
    ],
    [
      'an empty index_name → the first done set',
      { id: 'WzK6iT', index_item: { index_name: '' } },
      KB,
      'fallback',
      'collection_1',
      'collection_collection_1',
    ],
    [
      'an unknown index_name → the first done set',
      { id: 'WzK6iT', index_item: { index_name: 'gone' } },
      KB,
      'fallback',
      'collection_1',
      'collection_collection_1',
    ],
    [
      'the fallback skips pending and failed sets',
      { id: 'pend' },
      PENDING_FIRST,
      'fallback',
      'ready',
      'collection_ready',
    ],
    [
      'legacy configs with an unknown index_name',
      { id: 'WzK6iT', index_item: { index_name: 'old', collection_configs: LEGACY } },
      KB,
      'legacy',
      'old',
      LEGACY.collection_name,
    ],
    [
      'legacy configs without index_name',
      { id: 'WzK6iT', index_item: { collection_configs: LEGACY } },
      KB,
      'legacy',
      LEGACY.collection_name,
      LEGACY.collection_name,
    ],
    [
      'legacy configs of a block that no longer exists',
      { id: 'gone', index_item: { collection_configs: LEGACY } },
      undefined,
      'legacy',
      LEGACY.collection_name,
      LEGACY.collection_name,
    ],
    [
      'legacy configs lose to a known index_name (the block is the truth)',
      { id: 'WzK6iT', index_item: { index_name: 'collection_2', collection_configs: LEGACY } },
      KB,
      'index_name',
      'collection_2',
      'collection_collection_2',
    ],
    [
      'empty legacy configs are not legacy',
      { id: 'WzK6iT', index_item: { collection_configs: {} } },
      KB,
      'fallback',
      'collection_1',
      'collection_collection_1',
    ],
    [
      'legacy configs without a collection_name are not legacy',
      { id: 'WzK6iT', index_item: { collection_configs: { set_name: 'x' } } },
      KB,
      'fallback',
      'collection_1',
      'collection_collection_1',
    ],
  ])('%s', (_name, ds, b, via, indexName, collectionName) => {
    const r = resolveDataSource(ds, b);
    expect(r.via).toBe(via);
    expect(r.index_name).toBe(indexName);
    expect(r.collection_configs.collection_name).toBe(collectionName);
    expect(r.id).toBe(ds.id);
  });

  it('keeps the label', () => {
    expect(resolveDataSource({ id: 'WzK6iT', label: 'Knowledge Base' }, KB).label).toBe('Knowledge Base');
    expect(resolveDataSource({ id: 'WzK6iT' }, KB)).not.toHaveProperty('label');
  });

  it('returns the block configs, not the stale ones a data source embeds', () => {
    const r = resolveDataSource(
      {
        id: 'WzK6iT',
        index_item: { index_name: 'collection_1', collection_configs: { collection_name: 'stale' } },
      },
      KB,
    );
    expect(r.collection_configs).toEqual(configs('collection_1'));
  });

  it.each<[string, DataSourceRef, CollectionBlock | undefined, string, RegExp]>([
    [
      'an unknown block',
      { id: 'nope' },
      undefined,
      'unknown_block',
      /unknown knowledge collection \(block\) "nope"/,
    ],
    [
      'an unknown block with an index_name',
      { id: 'nope', index_item: { index_name: 'x' } },
      undefined,
      'unknown_block',
      /"nope"/,
    ],
    [
      'a block with no index sets',
      { id: 'empty' },
      EMPTY,
      'no_index_set',
      /no index set with status done \(index sets: none\)/,
    ],
    [
      'a block with nothing done',
      { id: 'none' },
      NOTHING_DONE,
      'no_index_set',
      /index sets: a \(pending\), b \(failed\)/,
    ],
    [
      'an unknown index_name and nothing done',
      { id: 'none', index_item: { index_name: 'zz' } },
      NOTHING_DONE,
      'no_index_set',
      /no index set "zz" and no index set with status done/,
    ],
  ])('fails for %s', (_name, ds, b, code, message) => {
    let caught: unknown;
    try {
      resolveDataSource(ds, b);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ResolutionError);
    expect((caught as ResolutionError).code).toBe(code);
    expect((caught as ResolutionError).message).toMatch(message);
    expect((caught as ResolutionError).retryable).toBe(false);
  });
});

describe(resolveDataSources.name, () => {
  const blocks = new Map([
    [KB.id, KB],
    [PENDING_FIRST.id, PENDING_FIRST],
  ]);

  it('resolves each data source against its own block, in order', () => {
    const r = resolveDataSources(
      [
        { id: 'pend' },
        { id: 'WzK6iT', index_item: { index_name: 'collection_2' } },
        { id: 'x', index_item: { collection_configs: LEGACY } },
      ],
      blocks,
    );
    expect(r.map((x) => [x.id, x.index_name, x.via])).toEqual([
      ['pend', 'ready', 'fallback'],
      ['WzK6iT', 'collection_2', 'index_name'],
      ['x', LEGACY.collection_name, 'legacy'],
    ]);
  });

  it('throws for the first unknown block', () => {
    expect(() => resolveDataSources([{ id: 'WzK6iT' }, { id: 'missing' }], blocks)).toThrow(/"missing"/);
  });
});

describe('retrieval arguments', () => {
  it.each<[string, unknown, boolean]>([
    ['minimal', { query: 'q', data_source: [{ id: 'a' }] }, true],
    [
      'full',
      {
        query: 'q',
        data_source: [{ id: 'a', label: 'L', index_item: { index_name: 'i' } }],
        top_k: 3,
        threshold: 0.2,
        mode: 'hybrid',
      },
      true,
    ],
    ['numeric strings are coerced', { query: 'q', data_source: [{ id: 'a' }], top_k: '3' }, true],
    [
      'legacy configs',
      { query: 'q', data_source: [{ id: 'a', index_item: { collection_configs: LEGACY } }] },
      true,
    ],
    ['no query', { data_source: [{ id: 'a' }] }, false],
    ['a blank query', { query: '  ', data_source: [{ id: 'a' }] }, false],
    ['no data source', { query: 'q', data_source: [] }, false],
    ['a data source without id', { query: 'q', data_source: [{ label: 'x' }] }, false],
    ['top_k 0', { query: 'q', data_source: [{ id: 'a' }], top_k: 0 }, false],
    ['an unknown mode', { query: 'q', data_source: [{ id: 'a' }], mode: 'semantic' }, false],
    ['an unknown argument', { query: 'q', data_source: [{ id: 'a' }], extra: 1 }, false],
  ])('%s', (_name, args, ok) => {
    expect(RetrievalArgsSchema.safeParse(args).success).toBe(ok);
  });

  it('defaults top_k 10, threshold 0, mode vector', () => {
    expect(RetrievalArgsSchema.parse({ query: 'q', data_source: [{ id: 'a' }] })).toMatchObject({
      top_k: 10,
      threshold: 0,
      mode: 'vector',
    });
  });

  it('keeps unknown fields of legacy collection_configs', () => {
    const ds = DataSourceRefSchema.parse({
      id: 'a',
      index_item: { collection_configs: { ...LEGACY, extra: 1 } },
    });
    expect(ds.index_item?.collection_configs).toMatchObject({ extra: 1 });
  });
});
