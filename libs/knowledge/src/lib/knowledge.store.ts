import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import {
  type CollectionConfigs,
  type CreateCollection,
  type IndexStatus,
  type IngestDocuments,
  type RunErrorCode,
  type SearchMode,
  isUuid,
} from '@switchyard/contracts';
import { chunkText } from './chunking';
import { type EmbeddingResolver, normalize, resolveEmbeddingModel } from './embedding';
import { reciprocalRankFusion } from './fusion';
import {
  detectVectorBackend,
  PGVECTOR_DIMENSIONS,
  pgvectorLiteral,
  type VectorBackendInfo,
} from './vector-backend';
import { type IndexSetRow, KnowledgeRepository, type RankedChunkRow } from './knowledge.repository';
import type { CollectionBlock, IndexingItem, ResolvedDataSource } from './resolution';
import type { SearchResult } from './schemas';

/** `collection_configs.vdb_type` of the index sets: how their vectors are compared. */
export const EXACT_VDB_TYPE = 'postgres-exact';
export const PGVECTOR_VDB_TYPE = 'pgvector';

/** A knowledge request that cannot succeed as asked (not a transient failure). */
export class KnowledgeError extends Error {
  readonly retryable = false;
  constructor(
    readonly code: RunErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'KnowledgeError';
  }
}

export interface SearchOptions {
  mode: SearchMode;
  topK: number;
  threshold: number;
}

const INSERT_BATCH = 500;
/** The one index set of a collection of fixed entries (ensureEntriesCollection). */
export const ENTRIES_SET = 'entries';

/**
 * The HNSW search beam for `limit` results: forty candidates a result, within pgvector's 1..1000.
 * Measured with the retrieval benchmark on pgvector at 20,000 chunks and top_k 10: recall@10 was
 * 0.71 with the default beam (40), 0.87 with 100, 0.95 with 200 and 0.97 with 400
 * (tools/bench/RETRIEVAL-PGVECTOR-RESULTS.md).
 */
export function hnswEfSearch(limit: number): number {
  return Math.min(1000, Math.max(40, limit * 40));
}
// Hybrid search fuses this many candidates of each ranking (at least), so fusion sees beyond top_k.
const HYBRID_CANDIDATES = 50;

/**
 * Collections (seed 000's vector-collection blocks), their index sets, documents and chunks in
 * Postgres; every method is tenant-scoped. Vectors are stored L2-normalised in float8[], so exact
 * cosine similarity is a dot product computed in SQL.
 */
export class KnowledgeStore {
  private backend?: Promise<VectorBackendInfo>;
  private readonly tables: KnowledgeRepository;

  /** `embeddings` provides the models that are not built in (the model registry's). */
  constructor(
    private readonly ds: DataSource,
    private readonly embeddings?: EmbeddingResolver,
  ) {
    this.tables = new KnowledgeRepository(ds);
  }

  /** Detected once per store (the schema does not change under a running process). */
  vectorBackend(): Promise<VectorBackendInfo> {
    this.backend ??= detectVectorBackend(this.ds).catch((err: unknown) => {
      this.backend = undefined;
      throw err;
    });
    return this.backend;
  }

  async createCollection(tenantId: string, input: CreateCollection): Promise<CollectionBlock> {
    const id = randomUUID();
    const vdbType = (await this.vectorBackend()).backend === 'pgvector' ? PGVECTOR_VDB_TYPE : EXACT_VDB_TYPE;
    await this.tables.createCollection(
      id,
      tenantId,
      input.name,
      input.index_sets.map((set) => {
        const configs: CollectionConfigs = {
          collection_name: `kb_${id.replace(/-/g, '')}_${set.index_name}`,
          set_name: set.index_name,
          model: set.model,
          vdb_type: vdbType,
          user_id: tenantId,
        };
        return { ...set, configsJson: JSON.stringify(configs) };
      }),
    );
    const created = await this.getCollection(tenantId, id);
    if (!created) {
      throw new Error(`collection ${id} vanished after creation`);
    }
    return created;
  }

  /** The tenant's collections, oldest first, as blocks, each with its number of documents. */
  async listCollections(tenantId: string): Promise<(CollectionBlock & { documents: number })[]> {
    const rows = await this.tables.listCollections(tenantId);
    const blocks = await this.getCollections(
      tenantId,
      rows.map((r) => r.id),
    );
    return rows.flatMap((r) => {
      const block = blocks.get(r.id);
      return block ? [{ ...block, documents: r.documents }] : [];
    });
  }

  /** Deletes the tenant's collection with its index sets, documents and chunks; false when it has none such. */
  async deleteCollection(tenantId: string, id: string): Promise<boolean> {
    if (!isUuid(id)) {
      return false;
    }
    return this.tables.deleteCollection(tenantId, id);
  }

  /** The documents of the tenant's collection (text and metadata), oldest first; undefined when it has none such. */
  async listDocuments(
    tenantId: string,
    collectionId: string,
  ): Promise<
    { id: string; text: string; metadata: unknown; created_at: Date; chunks: number }[] | undefined
  > {
    if (!(await this.getCollection(tenantId, collectionId))) {
      return undefined;
    }
    return this.tables.listDocuments(collectionId);
  }

  /** Deletes a document of the tenant's collection with its chunks; false when there is none such. */
  async deleteDocument(tenantId: string, collectionId: string, documentId: string): Promise<boolean> {
    if (!isUuid(collectionId) || !isUuid(documentId)) {
      return false;
    }
    return this.tables.deleteDocument(tenantId, collectionId, documentId);
  }

  async getCollection(tenantId: string, id: string): Promise<CollectionBlock | undefined> {
    return (await this.getCollections(tenantId, [id])).get(id);
  }

  /** The tenant's collections among `ids` (ids that are not UUIDs simply do not exist). */
  async getCollections(tenantId: string, ids: readonly string[]): Promise<Map<string, CollectionBlock>> {
    const wanted = [...new Set(ids.filter(isUuid).map((i) => i.toLowerCase()))];
    const blocks = new Map<string, CollectionBlock>();
    if (!wanted.length) {
      return blocks;
    }
    const collections = await this.tables.collectionsByIds(tenantId, wanted);
    for (const c of collections) {
      blocks.set(c.id, { id: c.id, name: c.name, indexingList: [] });
    }
    if (!blocks.size) {
      return blocks;
    }
    const sets = await this.tables.indexSetsOf([...blocks.keys()]);
    for (const s of sets) {
      blocks.get(s.collection_id)?.indexingList.push(indexingItem(s));
    }
    // Callers may have asked with upper-case ids.
    for (const id of ids) {
      const block = blocks.get(id.toLowerCase());
      if (block && !blocks.has(id)) {
        blocks.set(id, block);
      }
    }
    return blocks;
  }

  /**
   * The tenant's collections that `refs` name, by id (a UUID, with or without its dashes) or else
   * by name: ref → collection id, refs naming none left out.
   */
  async findCollections(tenantId: string, refs: readonly string[]): Promise<Map<string, string>> {
    const asId = (ref: string): string | undefined => {
      const dashed = /^[0-9a-f]{32}$/i.test(ref)
        ? `${ref.slice(0, 8)}-${ref.slice(8, 12)}-${ref.slice(12, 16)}-${ref.slice(16, 20)}-${ref.slice(20)}`
        : ref;
      return isUuid(dashed) ? dashed.toLowerCase() : undefined;
    };
    const ids = refs.map(asId).filter((i): i is string => i !== undefined);
    const rows = await this.tables.findCollections(tenantId, ids, [...refs]);
    const found = new Map<string, string>();
    for (const ref of refs) {
      const hit = rows.find((r) => r.id === asId(ref)) ?? rows.find((r) => r.name === ref);
      if (hit) {
        found.set(ref, hit.id);
      }
    }
    return found;
  }

  /**
   * Stores the documents, then chunks, embeds and indexes them into every index set of the
   * collection: each set goes pending → done, or failed with the reason (the others go on).
   * Returns undefined for a collection the tenant does not have.
   */
  async ingest(
    tenantId: string,
    collectionId: string,
    input: IngestDocuments,
  ): Promise<{ ingested: number; indexingList: IndexingItem[] } | undefined> {
    if (!isUuid(collectionId) || !(await this.getCollection(tenantId, collectionId))) {
      return undefined;
    }
    const docs = input.documents.map((d) => ({ id: randomUUID(), text: d.text, metadata: d.metadata ?? {} }));
    await this.tables.insertDocuments(
      collectionId,
      docs.map((d) => ({ id: d.id, text: d.text, metadata: JSON.stringify(d.metadata) })),
    );
    const indexingList = await this.indexInSets(tenantId, collectionId, docs, { replace: false });
    return { ingested: docs.length, indexingList };
  }

  /**
   * Indexes the collection's documents again, in every index set or the one named — after its
   * embedding model was fixed (a key added, a vendor moved) or changed its vectors, or a set that
   * failed. Each set is rebuilt whole: its new chunks replace the old ones in one transaction, so
   * a search meanwhile finds the old index, never half of either; a set that fails keeps its old
   * chunks and says why (status `failed`). Undefined for a collection the tenant does not have;
   * KnowledgeError for an unknown index set.
   */
  async reindex(
    tenantId: string,
    collectionId: string,
    indexName?: string,
  ): Promise<{ reindexed: number; indexingList: IndexingItem[] } | undefined> {
    const block = isUuid(collectionId) ? await this.getCollection(tenantId, collectionId) : undefined;
    if (!block) {
      return undefined;
    }
    if (indexName !== undefined && !block.indexingList.some((s) => s.index_name === indexName)) {
      throw new KnowledgeError(
        'unknown_index_set',
        `collection ${collectionId} has no index set "${indexName}"`,
      );
    }
    const docs = await this.tables.documentsOf(collectionId);
    const indexingList = await this.indexInSets(tenantId, collectionId, docs, { replace: true, indexName });
    return { reindexed: docs.length, indexingList };
  }

  /**
   * Searches one collection: the named index set, or every index set with status done. Returns
   * undefined for a collection the tenant does not have; KnowledgeError for an unknown index set.
   */
  async searchCollection(
    tenantId: string,
    collectionId: string,
    query: string,
    opts: SearchOptions & { indexName?: string },
  ): Promise<SearchResult[] | undefined> {
    const block = isUuid(collectionId) ? await this.getCollection(tenantId, collectionId) : undefined;
    if (!block) {
      return undefined;
    }
    let names: string[];
    if (opts.indexName !== undefined) {
      if (!block.indexingList.some((i) => i.index_name === opts.indexName)) {
        throw new KnowledgeError(
          'unknown_index_set',
          `collection ${block.id} has no index set "${opts.indexName}" (index sets: ${block.indexingList.map((i) => i.index_name).join(', ')})`,
        );
      }
      names = [opts.indexName];
    } else {
      names = block.indexingList.filter((i) => i.status === 'done').map((i) => i.index_name);
    }
    const sets = await this.indexSets(block.id, names);
    return this.searchSets(tenantId, sets, query, opts);
  }

  /** Searches the index sets the data sources resolved to (legacy ones located by their configs). */
  async searchResolved(
    tenantId: string,
    resolved: readonly ResolvedDataSource[],
    query: string,
    opts: SearchOptions,
  ): Promise<SearchResult[]> {
    const sets: IndexSetRow[] = [];
    for (const r of resolved) {
      const set =
        r.via === 'legacy'
          ? await this.legacySet(tenantId, r)
          : (await this.indexSets(r.id, [r.index_name]))[0];
      if (!set) {
        throw new KnowledgeError(
          'unknown_index_set',
          `collection ${r.id} has no index set "${r.index_name}"`,
        );
      }
      if (!sets.some((s) => s.collection_id === set.collection_id && s.index_name === set.index_name)) {
        sets.push(set);
      }
    }
    return this.searchSets(tenantId, sets, query, opts);
  }

  /**
   * A collection of fixed entries (a PuppyEngine vector-collection block's), found by its name or
   * created: one index set, `ENTRIES_SET`, each entry one document embedded whole (up to the largest
   * chunk), its metadata kept. Answers the set's `collection_configs` — where a search finds it.
   * The same name is the same content (the caller names it by a hash), so a collection already
   * indexed is reused without embedding again; one whose indexing failed is deleted and the reason
   * thrown (KnowledgeError `indexing_failed`).
   */
  async ensureEntriesCollection(
    tenantId: string,
    spec: { name: string; model: string; documents: { text: string; metadata: Record<string, unknown> }[] },
  ): Promise<{ collection_id: string; configs: CollectionConfigs; created: boolean }> {
    const existing = await this.tables.doneSetByName(tenantId, spec.name, ENTRIES_SET, spec.model);
    if (existing) {
      return { collection_id: existing.collection_id, configs: existing.collection_configs, created: false };
    }
    const block = await this.createCollection(tenantId, {
      name: spec.name,
      index_sets: [{ index_name: ENTRIES_SET, model: spec.model, chunk_size: 8000, chunk_overlap: 0 }],
    });
    const ingested = await this.ingest(tenantId, block.id, { documents: spec.documents });
    const set = ingested?.indexingList.find((s) => s.index_name === ENTRIES_SET);
    if (!set || set.status !== 'done') {
      await this.deleteCollection(tenantId, block.id);
      throw new KnowledgeError(
        'indexing_failed',
        `indexing with embedding model "${spec.model}" failed: ${set?.error ?? 'the collection vanished'}`,
      );
    }
    return { collection_id: block.id, configs: set.collection_configs as CollectionConfigs, created: true };
  }

  /**
   * Searches index sets located by their `collection_configs` (a PuppyEngine block keeps them, not
   * the collection's id): each source names its block and index set in the error when the tenant
   * has no such set.
   */
  async searchByConfigs(
    tenantId: string,
    sources: readonly { block: string; index_name: string; collection_configs: Partial<CollectionConfigs> }[],
    query: string,
    opts: SearchOptions,
  ): Promise<SearchResult[]> {
    const sets: IndexSetRow[] = [];
    for (const s of sources) {
      const name = s.collection_configs.collection_name;
      const set = name ? await this.setByConfigs(tenantId, name, s.collection_configs.set_name) : undefined;
      if (!set) {
        throw new KnowledgeError(
          'unknown_collection',
          `block "${s.block}", index "${s.index_name}": ${name ? `no collection "${name}" exists for this tenant (deleted?)` : 'the index set has no collection (its entries were never indexed)'}`,
        );
      }
      if (set.status !== 'done') {
        throw new KnowledgeError(
          'index_not_ready',
          `block "${s.block}", index "${s.index_name}": its collection is ${set.status}${set.error ? ` (${set.error})` : ''}`,
        );
      }
      sets.push(set);
    }
    return this.searchSets(tenantId, sets, query, opts);
  }

  /** Whether the tenant has the index set these configs name, and its status (undefined: none). */
  async setStatusByConfigs(
    tenantId: string,
    configs: Partial<CollectionConfigs>,
  ): Promise<IndexStatus | undefined> {
    const name = configs.collection_name;
    return name ? (await this.setByConfigs(tenantId, name, configs.set_name))?.status : undefined;
  }

  private async setByConfigs(
    tenantId: string,
    collectionName: string,
    setName: string | undefined,
  ): Promise<IndexSetRow | undefined> {
    return this.tables.setByConfigs(tenantId, collectionName, setName);
  }

  private async legacySet(tenantId: string, r: ResolvedDataSource): Promise<IndexSetRow | undefined> {
    const { collection_name: name, set_name: setName } = r.collection_configs;
    const row = await this.setByConfigs(tenantId, name ?? '', setName);
    if (!row) {
      throw new KnowledgeError(
        'unknown_collection',
        `the data source "${r.id}" embeds collection_configs naming an unknown collection "${name}"${setName ? ` (set "${setName}")` : ''}`,
      );
    }
    return row;
  }

  private async indexSets(collectionId: string, names: readonly string[]): Promise<IndexSetRow[]> {
    if (!names.length || !isUuid(collectionId)) {
      return [];
    }
    return this.tables.indexSetsByName(collectionId, names);
  }

  private async searchSets(
    tenantId: string,
    sets: readonly IndexSetRow[],
    query: string,
    opts: SearchOptions,
  ): Promise<SearchResult[]> {
    // The query is embedded once per model, however many index sets share it (a remote model
    // is a paid call each time).
    const vectors = new Map<string, Promise<number[]>>();
    const queryVector = (modelName: string): Promise<number[]> => {
      let v = vectors.get(modelName);
      if (!v) {
        v = resolveEmbeddingModel(modelName, { tenant_id: tenantId }, this.embeddings)
          .then((model) => model.embed([query]))
          .then(([vector]) => normalize(vector));
        vectors.set(modelName, v);
      }
      return v;
    };
    const all: RankedChunkRow[] = [];
    for (const set of sets) {
      all.push(...(await this.searchSet(set, query, () => queryVector(set.model), opts)));
    }
    return all
      .sort((a, b) => b.score - a.score)
      .slice(0, opts.topK)
      .map((c) => ({
        chunk_id: c.id,
        text: c.text,
        score: round(c.score),
        metadata: c.metadata,
        index_name: c.index_name,
      }));
  }

  /** One index set's ranking in the chosen mode, cut at top_k and at the threshold. */
  private async searchSet(
    set: IndexSetRow,
    query: string,
    queryVector: () => Promise<number[]>,
    opts: SearchOptions,
  ): Promise<RankedChunkRow[]> {
    let ranked: RankedChunkRow[];
    if (opts.mode === 'vector') {
      ranked = await this.vectorRanking(set, await queryVector(), opts.topK);
    } else if (opts.mode === 'fulltext') {
      ranked = await this.fulltextRanking(set, query, opts.topK);
    } else {
      const n = Math.max(opts.topK * 5, HYBRID_CANDIDATES);
      // Two statements on two pooled connections at once: hybrid costs about the slower ranking.
      const [vector, fulltext] = await Promise.all([
        queryVector().then((q) => this.vectorRanking(set, q, n)),
        this.fulltextRanking(set, query, n),
      ]);
      const byId = new Map([...vector, ...fulltext].map((c) => [c.id, c]));
      ranked = reciprocalRankFusion([vector.map((c) => c.id), fulltext.map((c) => c.id)])
        .slice(0, opts.topK)
        .map(({ key, score }) => ({ ...(byId.get(key) as RankedChunkRow), score }));
    }
    return ranked.filter((c) => c.score >= opts.threshold);
  }

  /**
   * Cosine ranking: pgvector's `<=>` when it is in use and the model fits its columns (ordered by
   * the distance alone, so the HNSW index serves it), else the exact dot product in SQL (stored
   * vectors and the query are unit vectors, so it is the cosine).
   */
  private async vectorRanking(
    set: IndexSetRow,
    q: readonly number[],
    limit: number,
  ): Promise<RankedChunkRow[]> {
    // The generated pgvector column holds only vectors of its size; others are searched exactly.
    const backend = await this.vectorBackend();
    const usePgvector = backend.backend === 'pgvector' && q.length === PGVECTOR_DIMENSIONS;
    const exact = () => this.tables.exactRanking(set, q, limit);
    if (!usePgvector) {
      return exact();
    }
    // HNSW keeps ef_search candidates (pgvector's default: 40); a wider beam keeps recall up. One
    // collection of a shared table: with iterative scans, the scan goes on until LIMIT rows pass
    // the filter, in order.
    const rows = await this.tables.pgvectorRanking(set, pgvectorLiteral(q), limit, {
      efSearch: hnswEfSearch(limit),
      iterativeScan: backend.iterativeScan,
    });
    // The approximate scan came back short (a filtered scan may miss rows of a small index set,
    // or the set holds fewer rows): the exact ranking answers, at the cost of one more query.
    return rows.length < limit ? exact() : rows;
  }

  private fulltextRanking(set: IndexSetRow, query: string, limit: number): Promise<RankedChunkRow[]> {
    return this.tables.fulltextRanking(set, query, limit);
  }

  /**
   * Indexes `docs` in the collection's index sets (every one, or `indexName`'s): each set goes
   * `pending`, then `done`, or `failed` with the reason; `replace` rebuilds a set whole (its old
   * chunks go in the transaction that adds the new). Answers the collection's sets afterwards.
   */
  private async indexInSets(
    tenantId: string,
    collectionId: string,
    docs: readonly { id: string; text: string; metadata: Record<string, unknown> }[],
    opts: { replace: boolean; indexName?: string },
  ): Promise<IndexingItem[]> {
    const rows = await this.tables.markPending(collectionId, opts.indexName);
    for (const set of rows) {
      try {
        await this.indexDocuments(tenantId, set, docs, { replace: opts.replace });
        await this.setStatus(set, 'done', null);
      } catch (err) {
        const reason = (err as Error).message || String(err);
        await this.setStatus(set, 'failed', reason.slice(0, 2000));
      }
    }
    return (await this.getCollection(tenantId, collectionId))?.indexingList ?? [];
  }

  private async indexDocuments(
    tenantId: string,
    set: IndexSetRow,
    docs: readonly { id: string; text: string; metadata: Record<string, unknown> }[],
    opts: { replace?: boolean } = {},
  ): Promise<void> {
    const model = await resolveEmbeddingModel(set.model, { tenant_id: tenantId }, this.embeddings);
    const chunks: { documentId: string; position: number; text: string; metadata: string }[] = [];
    for (const d of docs) {
      const pieces = await chunkText(d.text, set.chunk_size, set.chunk_overlap);
      const metadata = JSON.stringify(d.metadata);
      pieces.forEach((text, position) => chunks.push({ documentId: d.id, position, text, metadata }));
    }
    // Embedding (maybe a remote call per batch) happens before the transaction opens, so no
    // connection sits idle in a transaction while a vendor answers.
    const vectors = await model.embed(chunks.map((c) => c.text));
    if (vectors.length !== chunks.length) {
      throw new Error(
        `embedding model "${model.name}" answered ${vectors.length} vectors for ${chunks.length} chunks`,
      );
    }
    const dims = new Set(vectors.map((v) => v.length));
    if (dims.size > 1) {
      throw new Error(
        `embedding model "${model.name}" answered vectors of different sizes (${[...dims].join(', ')})`,
      );
    }
    await this.tables.writeChunks(
      set,
      chunks.map((c, i) => ({ ...c, embedding: `{${normalize(vectors[i]).join(',')}}` })),
      { replace: opts.replace ?? false, batch: INSERT_BATCH },
    );
  }

  private setStatus(set: IndexSetRow, status: IndexStatus, error: string | null): Promise<void> {
    return this.tables.setStatus(set, status, error);
  }
}

function indexingItem(s: IndexSetRow): IndexingItem {
  return {
    index_name: s.index_name,
    status: s.status,
    ...(s.error ? { error: s.error } : {}),
    collection_configs: s.collection_configs,
  };
}

const round = (x: number): number => Math.round(x * 1e6) / 1e6;
