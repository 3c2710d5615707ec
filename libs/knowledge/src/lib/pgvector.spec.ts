// The pgvector code paths against a real pgvector: the project's migrations install the extension
// and the generated vector columns with HNSW indexes, and vector search through `<=>` finds what
// the exact search finds. The engine is PGlite (Postgres in WebAssembly) with its pgvector build,
// because the machine's Postgres has no pgvector (see libs/testing PgvectorServer).
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { CreateCollectionSchema } from '@switchyard/contracts';
import { createDataSource, runMigrationsLocked } from '@switchyard/persistence';
import { PgvectorServer } from '@switchyard/testing';
import { cosine, hashEmbedding } from './embedding';
import { KnowledgeStore, PGVECTOR_VDB_TYPE } from './knowledge.store';
import { detectVectorBackend } from './vector-backend';

jest.setTimeout(120_000);

let server: PgvectorServer;
let ds: DataSource;

beforeAll(async () => {
  server = await PgvectorServer.start();
  // Two connections: the migrations hold an advisory lock on one and migrate on the other.
  ds = await createDataSource(server.url, { poolSize: 2 });
  await runMigrationsLocked(ds);
});

afterAll(async () => {
  await ds?.destroy();
  await server?.stop();
});

const SUBJECTS = [
  'postgres checkpoints',
  'nats messages',
  'redis streams',
  'cats and mats',
  'kubernetes pods',
];
const WORDS = ['fast', 'durable', 'small', 'large', 'replica', 'delta', 'event', 'query', 'index', 'step'];

/** A deterministic corpus: each document mixes one subject with a few filler words. */
function corpus(n: number): { text: string; metadata: { i: number } }[] {
  return Array.from({ length: n }, (_, i) => ({
    text: `${SUBJECTS[i % SUBJECTS.length]} ${WORDS[i % 7]} ${WORDS[(i * 3) % 10]} ${WORDS[(i * 7) % 10]} doc${i}`,
    metadata: { i },
  }));
}

describe('pgvector', () => {
  it('is installed by the migrations, with the generated vector columns: the backend says pgvector', async () => {
    const info = await detectVectorBackend(ds);
    expect(info).toMatchObject({ backend: 'pgvector', pgvectorAvailable: true, pgvectorInstalled: true });
    expect(info.iterativeScan).toBe(true);
    const indexes = (await ds.query(
      `SELECT indexname FROM pg_indexes WHERE indexname LIKE '%embedding_hnsw' ORDER BY 1`,
    )) as { indexname: string }[];
    // Memories are searched exactly per user: only chunks keep an HNSW index.
    expect(indexes.map((i) => i.indexname)).toEqual(['chunks_embedding_hnsw']);
  });

  it('searches through the HNSW index and finds what the exact cosine finds (recall@10)', async () => {
    const [{ id: tenantId }] = (await ds.query(
      `INSERT INTO tenants (name) VALUES ($1) RETURNING id::text AS id`,
      [`t-${randomUUID()}`],
    )) as { id: string }[];
    const store = new KnowledgeStore(ds);
    const block = await store.createCollection(
      tenantId,
      CreateCollectionSchema.parse({ name: 'pgvector corpus', index_sets: [{ index_name: 'main' }] }),
    );
    expect(block.indexingList[0].collection_configs.vdb_type).toBe(PGVECTOR_VDB_TYPE);
    const docs = corpus(400);
    await store.ingest(tenantId, block.id, { documents: docs });
    const [{ n }] = (await ds.query(
      `SELECT count(*)::int AS n FROM chunks WHERE collection_id = $1 AND embedding_vec IS NOT NULL`,
      [block.id],
    )) as { n: number }[];
    expect(n).toBe(docs.length);

    let hits = 0;
    const queries = [
      'postgres checkpoints durable',
      'redis streams event',
      'cats mats small',
      'nats messages replica',
    ];
    for (const query of queries) {
      const found = await store.searchCollection(tenantId, block.id, query, {
        mode: 'vector',
        topK: 10,
        threshold: 0,
      });
      expect(found).toHaveLength(10);
      const q = hashEmbedding(query);
      const exact = docs
        .map((d) => ({ text: d.text, score: cosine(q, hashEmbedding(d.text)) }))
        .sort((a, b) => b.score - a.score);
      const cut = exact[9].score;
      // Ties at the 10th score count as hits.
      hits += found!.filter((r) => r.score >= cut - 1e-9).length;
      expect(found![0].score).toBeCloseTo(exact[0].score, 6);
    }
    expect(hits / (queries.length * 10)).toBeGreaterThanOrEqual(0.9);
  });

  it('fills top_k for a small collection of a large table, as the exact search does', async () => {
    const [{ id: tenantId }] = (await ds.query(
      `INSERT INTO tenants (name) VALUES ($1) RETURNING id::text AS id`,
      [`t-${randomUUID()}`],
    )) as { id: string }[];
    const store = new KnowledgeStore(ds);
    const make = async (name: string) =>
      store.createCollection(
        tenantId,
        CreateCollectionSchema.parse({ name, index_sets: [{ index_name: 'main' }] }),
      );
    const big = await make('big');
    const small = await make('small');
    await store.ingest(tenantId, big.id, { documents: corpus(1500) });
    // The small collection's documents all share one subject the query is far from.
    const few = Array.from({ length: 12 }, (_, i) => ({
      text: `kubernetes pods ${WORDS[i % 10]} few${i}`,
      metadata: { i },
    }));
    await store.ingest(tenantId, small.id, { documents: few });
    // A table this small would be sorted exactly; make the planner take the HNSW index, as it does
    // on a large table (PGlite is one session, so the setting holds for the store's statements).
    await ds.query('SET enable_sort = off');
    const plan = (await ds.query(
      `EXPLAIN SELECT id FROM chunks WHERE collection_id = $1 AND index_name = 'main'
       ORDER BY embedding_vec <=> $2::vector LIMIT 10`,
      [small.id, `[${hashEmbedding('x').join(',')}]`],
    )) as { 'QUERY PLAN': string }[];
    expect(plan.map((p) => p['QUERY PLAN']).join('\n')).toContain('chunks_embedding_hnsw');
    const found = await store
      .searchCollection(tenantId, small.id, 'postgres checkpoints durable delta', {
        mode: 'vector',
        topK: 10,
        threshold: Number.NEGATIVE_INFINITY,
      })
      .finally(() => ds.query('RESET enable_sort'));
    expect(found).toHaveLength(10);
    expect(new Set(found!.map((r) => r.text)).size).toBe(10);
    expect(found!.every((r) => few.some((d) => d.text === r.text))).toBe(true);
  });
});
