import { type Selectable, sql } from 'kysely';
import type { DataSource } from 'typeorm';
import { type DB, type Db, kyselyOf, kyselyTransaction } from '@switchyard/persistence';
import type { CollectionConfigs, IndexStatus } from '@switchyard/contracts';
import { detoastedArray, dotProductSql } from './vector-sql';

/** An index set as the store works with it. */
export interface IndexSetRow {
  collection_id: string;
  index_name: string;
  status: IndexStatus;
  error: string | null;
  model: string;
  chunk_size: number;
  chunk_overlap: number;
  collection_configs: Partial<CollectionConfigs>;
}

/** A chunk of a ranking, with its score (pg returns float8 as number, float4/real as number). */
export interface RankedChunkRow {
  id: string;
  text: string;
  metadata: Record<string, unknown>;
  index_name: string;
  score: number;
}

/** A new index set of a collection (`configsJson`: its collection_configs as JSON text). */
export interface NewIndexSet {
  index_name: string;
  model: string;
  chunk_size: number;
  chunk_overlap: number;
  configsJson: string;
}

/** A chunk to insert (`metadata`: JSON text; `embedding`: a float8[] literal). */
export interface NewChunk {
  documentId: string;
  position: number;
  text: string;
  metadata: string;
  embedding: string;
}

const INDEX_SET_COLUMNS = [
  'collection_id',
  'index_name',
  'status',
  'error',
  'model',
  'chunk_size',
  'chunk_overlap',
  'collection_configs',
] as const;

/** index_sets.status only ever holds an IndexStatus; collection_configs the JSON the store wrote. */
function indexSetRow(r: Pick<Selectable<DB['index_sets']>, (typeof INDEX_SET_COLUMNS)[number]>): IndexSetRow {
  return {
    ...r,
    status: r.status as IndexStatus,
    collection_configs: r.collection_configs as Partial<CollectionConfigs>,
  };
}

/** Chunks and documents keep the metadata object they were given. */
function rankedChunk(r: Omit<RankedChunkRow, 'metadata'> & { metadata: unknown }): RankedChunkRow {
  return { ...r, metadata: r.metadata as Record<string, unknown>, score: Number(r.score) };
}

/**
 * The knowledge tables (`collections`, `index_sets`, `documents`, `chunks`). Callers scope every
 * statement by tenant (through the collection); vectors are float arrays, compared by the exact
 * dot product in SQL or by pgvector's `<=>` on the generated `embedding_vec` column (raw SQL: the
 * column and its operator are not in the table types, since pgvector is not on every server).
 */
export class KnowledgeRepository {
  private readonly db: Db;

  constructor(private readonly ds: DataSource) {
    this.db = kyselyOf(ds);
  }

  /** What the server offers of pgvector, and whether the migrations added the vector columns. */
  async vectorExtension(): Promise<{
    available: boolean;
    installed: boolean;
    version: string | null;
    chunk_column: boolean;
    memory_column: boolean;
  }> {
    const { rows } = await sql<{
      available: boolean;
      installed: boolean;
      version: string | null;
      chunk_column: boolean;
      memory_column: boolean;
    }>`SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') AS available,
            EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector') AS installed,
            (SELECT extversion FROM pg_extension WHERE extname = 'vector') AS version,
            EXISTS (SELECT 1 FROM information_schema.columns
                    WHERE table_name = 'chunks' AND column_name = 'embedding_vec') AS chunk_column,
            EXISTS (SELECT 1 FROM information_schema.columns
                    WHERE table_name = 'memories' AND column_name = 'embedding_vec') AS memory_column`.execute(
      this.db,
    );
    return rows[0];
  }

  /** A collection and its index sets (status `pending`), in one transaction. */
  async createCollection(
    id: string,
    tenantId: string,
    name: string,
    sets: readonly NewIndexSet[],
  ): Promise<void> {
    await kyselyTransaction(this.ds, async (db) => {
      await db.insertInto('collections').values({ id, tenant_id: tenantId, name }).execute();
      for (const [position, set] of sets.entries()) {
        await db
          .insertInto('index_sets')
          .values({
            collection_id: id,
            index_name: set.index_name,
            position,
            status: 'pending',
            model: set.model,
            chunk_size: set.chunk_size,
            chunk_overlap: set.chunk_overlap,
            collection_configs: set.configsJson,
          })
          .execute();
      }
    });
  }

  /** The tenant's collections, oldest first, each with its number of documents. */
  listCollections(tenantId: string): Promise<{ id: string; documents: number }[]> {
    return this.db
      .selectFrom('collections as c')
      .select([
        'c.id',
        sql<number>`(SELECT count(*) FROM documents d WHERE d.collection_id = c.id)::int`.as('documents'),
      ])
      .where('c.tenant_id', '=', tenantId)
      .orderBy('c.created_at')
      .orderBy('c.id')
      .execute();
  }

  /** Deletes the tenant's collection (its sets, documents and chunks cascade); false when none. */
  async deleteCollection(tenantId: string, id: string): Promise<boolean> {
    const gone = await this.db
      .deleteFrom('collections')
      .where('id', '=', id)
      .where('tenant_id', '=', tenantId)
      .returning('id')
      .execute();
    return gone.length > 0;
  }

  /** A collection's documents, oldest first, each with its number of chunks. */
  listDocuments(
    collectionId: string,
  ): Promise<{ id: string; text: string; metadata: unknown; created_at: Date; chunks: number }[]> {
    return this.db
      .selectFrom('documents as d')
      .select([
        'd.id',
        'd.text',
        'd.metadata',
        'd.created_at',
        sql<number>`(SELECT count(*) FROM chunks k WHERE k.document_id = d.id)::int`.as('chunks'),
      ])
      .where('d.collection_id', '=', collectionId)
      .orderBy('d.created_at')
      .orderBy('d.id')
      .execute();
  }

  /** Deletes a document of the tenant's collection (its chunks cascade); false when none. */
  async deleteDocument(tenantId: string, collectionId: string, documentId: string): Promise<boolean> {
    const gone = await this.db
      .deleteFrom('documents as d')
      .using('collections as c')
      .where('d.id', '=', documentId)
      .where('d.collection_id', '=', collectionId)
      .whereRef('c.id', '=', 'd.collection_id')
      .where('c.tenant_id', '=', tenantId)
      .returning('d.id')
      .execute();
    return gone.length > 0;
  }

  /** The tenant's collections among `ids` (UUIDs). */
  collectionsByIds(tenantId: string, ids: readonly string[]): Promise<{ id: string; name: string }[]> {
    return this.db
      .selectFrom('collections')
      .select([sql<string>`id::text`.as('id'), 'name'])
      .where('tenant_id', '=', tenantId)
      .where('id', '=', sql<string>`ANY(${ids}::uuid[])`)
      .execute();
  }

  /** The index sets of the collections, by collection then position. */
  async indexSetsOf(collectionIds: readonly string[]): Promise<IndexSetRow[]> {
    const rows = await this.db
      .selectFrom('index_sets')
      .select([sql<string>`collection_id::text`.as('collection_id'), ...INDEX_SET_COLUMNS.slice(1)])
      .where('collection_id', '=', sql<string>`ANY(${collectionIds}::uuid[])`)
      .orderBy('collection_id')
      .orderBy('position')
      .execute();
    return rows.map(indexSetRow);
  }

  /** The tenant's collections whose id is among `ids` (UUIDs) or whose name is among `names`. */
  findCollections(
    tenantId: string,
    ids: readonly string[],
    names: readonly string[],
  ): Promise<{ id: string; name: string }[]> {
    return this.db
      .selectFrom('collections')
      .select([sql<string>`id::text`.as('id'), 'name'])
      .where('tenant_id', '=', tenantId)
      .where((eb) =>
        eb.or([
          eb('id', '=', sql<string>`ANY(${ids}::uuid[])`),
          eb('name', '=', sql<string>`ANY(${names}::text[])`),
        ]),
      )
      .execute();
  }

  /** Stores documents of a collection (`metadata`: JSON text), in one statement. */
  async insertDocuments(
    collectionId: string,
    docs: readonly { id: string; text: string; metadata: string }[],
  ): Promise<void> {
    await sql`INSERT INTO documents (id, collection_id, text, metadata)
       SELECT d.id, ${collectionId}, d.text, d.metadata::jsonb
       FROM unnest(${docs.map((d) => d.id)}::uuid[], ${docs.map((d) => d.text)}::text[],
                   ${docs.map((d) => d.metadata)}::text[]) AS d(id, text, metadata)`.execute(this.db);
  }

  /** A collection's documents, oldest first. */
  async documentsOf(
    collectionId: string,
  ): Promise<{ id: string; text: string; metadata: Record<string, unknown> }[]> {
    const rows = await this.db
      .selectFrom('documents')
      .select(['id', 'text', 'metadata'])
      .where('collection_id', '=', collectionId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    // A document keeps the metadata object it was given.
    return rows.map((r) => ({ ...r, metadata: r.metadata as Record<string, unknown> }));
  }

  /** The oldest of the tenant's collections named `name` whose set `indexName` is done with `model`. */
  async doneSetByName(
    tenantId: string,
    name: string,
    indexName: string,
    model: string,
  ): Promise<{ collection_id: string; collection_configs: CollectionConfigs } | undefined> {
    const row = await this.db
      .selectFrom('collections as c')
      .innerJoin('index_sets as s', 's.collection_id', 'c.id')
      .select([sql<string>`s.collection_id::text`.as('collection_id'), 's.collection_configs'])
      .where('c.tenant_id', '=', tenantId)
      .where('c.name', '=', name)
      .where('s.index_name', '=', indexName)
      .where('s.status', '=', 'done')
      .where('s.model', '=', model)
      .orderBy('c.created_at')
      .limit(1)
      .executeTakeFirst();
    return row && { ...row, collection_configs: row.collection_configs as CollectionConfigs };
  }

  /**
   * The tenant's index set whose collection_configs name `collectionName` (and `setName`, when
   * given: otherwise any set of it).
   */
  async setByConfigs(
    tenantId: string,
    collectionName: string,
    setName: string | undefined,
  ): Promise<IndexSetRow | undefined> {
    let q = this.db
      .selectFrom('index_sets as s')
      .innerJoin('collections as c', 'c.id', 's.collection_id')
      .select([
        sql<string>`s.collection_id::text`.as('collection_id'),
        's.index_name',
        's.status',
        's.error',
        's.model',
        's.chunk_size',
        's.chunk_overlap',
        's.collection_configs',
      ])
      .where('c.tenant_id', '=', tenantId)
      .where(sql<string>`s.collection_configs->>'collection_name'`, '=', collectionName);
    if (setName) {
      q = q.where(sql<string>`s.collection_configs->>'set_name'`, '=', setName);
    }
    const [row] = await q.execute();
    return row && indexSetRow(row);
  }

  /** A collection's index sets named among `names`, by position. */
  async indexSetsByName(collectionId: string, names: readonly string[]): Promise<IndexSetRow[]> {
    const rows = await this.db
      .selectFrom('index_sets')
      .select([sql<string>`collection_id::text`.as('collection_id'), ...INDEX_SET_COLUMNS.slice(1)])
      .where('collection_id', '=', collectionId)
      .where('index_name', '=', sql<string>`ANY(${names}::text[])`)
      .orderBy('position')
      .execute();
    return rows.map(indexSetRow);
  }

  /** The set's chunks by the exact dot product with `q` (a unit vector), best first, at most `limit`. */
  async exactRanking(set: IndexSetRow, q: readonly number[], limit: number): Promise<RankedChunkRow[]> {
    const { rows } = await sql<RankedChunkRow>`
      SELECT c.id::text AS id, c.text, c.metadata, c.index_name, ${sql.raw(dotProductSql('x.e', q))} AS score
      FROM chunks c, ${sql.raw(detoastedArray('c.embedding', 'x', 'float8'))}
      WHERE c.collection_id = ${set.collection_id} AND c.index_name = ${set.index_name}
      ORDER BY score DESC, c.id LIMIT ${limit}`.execute(this.db);
    return rows.map(rankedChunk);
  }

  /**
   * The set's chunks by pgvector's cosine distance to `vector` (pgvector's text form) through the
   * HNSW index, with a search beam of `efSearch` and, when `iterativeScan`, scanning on until
   * `limit` rows pass the filter — settings local to the statement's own transaction.
   */
  async pgvectorRanking(
    set: IndexSetRow,
    vector: string,
    limit: number,
    opts: { efSearch: number; iterativeScan: boolean },
  ): Promise<RankedChunkRow[]> {
    const rows = await kyselyTransaction(this.ds, async (db) => {
      await sql`SELECT set_config('hnsw.ef_search', ${String(opts.efSearch)}, true)`.execute(db);
      if (opts.iterativeScan) {
        await sql`SELECT set_config('hnsw.iterative_scan', 'strict_order', true)`.execute(db);
      }
      return (
        await sql<RankedChunkRow>`
          SELECT c.id::text AS id, c.text, c.metadata, c.index_name, 1 - (c.embedding_vec <=> ${vector}::vector) AS score
          FROM chunks c WHERE c.collection_id = ${set.collection_id} AND c.index_name = ${set.index_name}
          ORDER BY c.embedding_vec <=> ${vector}::vector LIMIT ${limit}`.execute(db)
      ).rows;
    });
    return rows.map(rankedChunk);
  }

  /** The set's chunks matching `query` as plain full-text terms, by ts_rank, at most `limit`. */
  async fulltextRanking(set: IndexSetRow, query: string, limit: number): Promise<RankedChunkRow[]> {
    const { rows } = await sql<RankedChunkRow>`
      SELECT c.id::text AS id, c.text, c.metadata, c.index_name, ts_rank(c.tsv, q) AS score
      FROM chunks c, plainto_tsquery('simple', ${query}) AS q
      WHERE c.collection_id = ${set.collection_id} AND c.index_name = ${set.index_name} AND c.tsv @@ q
      ORDER BY score DESC, c.id LIMIT ${limit}`.execute(this.db);
    return rows.map(rankedChunk);
  }

  /** Sets the collection's index sets (all, or `indexName`) `pending`; answers them. */
  async markPending(collectionId: string, indexName: string | undefined): Promise<IndexSetRow[]> {
    let q = this.db
      .updateTable('index_sets')
      .set((eb) => ({ status: 'pending', error: null, updated_at: eb.fn('now') }))
      .where('collection_id', '=', collectionId);
    if (indexName !== undefined) {
      q = q.where('index_name', '=', indexName);
    }
    const rows = await q
      .returning([sql<string>`collection_id::text`.as('collection_id'), ...INDEX_SET_COLUMNS.slice(1)])
      .execute();
    return rows.map(indexSetRow);
  }

  /**
   * Adds chunks to the set in one transaction, `batch` rows a statement; `replace` deletes the
   * set's old chunks first, in the same transaction (a search sees the old index or the new).
   */
  async writeChunks(
    set: IndexSetRow,
    chunks: readonly NewChunk[],
    opts: { replace: boolean; batch: number },
  ): Promise<void> {
    await kyselyTransaction(this.ds, async (db) => {
      if (opts.replace) {
        await db
          .deleteFrom('chunks')
          .where('collection_id', '=', set.collection_id)
          .where('index_name', '=', set.index_name)
          .execute();
      }
      for (let i = 0; i < chunks.length; i += opts.batch) {
        const batch = chunks.slice(i, i + opts.batch);
        await sql`INSERT INTO chunks (collection_id, index_name, document_id, position, text, metadata, embedding)
           SELECT ${set.collection_id}, ${set.index_name}, c.document_id, c.position, c.text, c.metadata::jsonb,
                  c.embedding::float8[]
           FROM unnest(${batch.map((c) => c.documentId)}::uuid[], ${batch.map((c) => c.position)}::int[],
                       ${batch.map((c) => c.text)}::text[], ${batch.map((c) => c.metadata)}::text[],
                       ${batch.map((c) => c.embedding)}::text[])
             AS c(document_id, position, text, metadata, embedding)`.execute(db);
      }
    });
  }

  async setStatus(set: IndexSetRow, status: IndexStatus, error: string | null): Promise<void> {
    await this.db
      .updateTable('index_sets')
      .set((eb) => ({ status, error, updated_at: eb.fn('now') }))
      .where('collection_id', '=', set.collection_id)
      .where('index_name', '=', set.index_name)
      .execute();
  }
}
