// MemoryStore against the real Postgres: a scratch database per run (migrated), dropped at the end.
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { createDataSource, ensureDatabase, runMigrationsLocked } from '@switchyard/persistence';
import { dropDatabase } from '@switchyard/testing';
import { HashEmbeddingModel, cosine, hashEmbedding } from './embedding';
import { type MemoryOwner, MemoryStore, memoryText } from './memory.store';
import { detoastedArray, dotProductSql } from './vector-sql';

jest.setTimeout(60_000);

const url = (() => {
  const u = new URL(process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  u.pathname = `/switchyard_test_memory_${process.pid}`;
  return u.toString();
})();

let ds: DataSource;
let store: MemoryStore;
const model = new HashEmbeddingModel();

beforeAll(async () => {
  await ensureDatabase(url);
  ds = await createDataSource(url, { poolSize: 2 });
  await runMigrationsLocked(ds);
  store = new MemoryStore(ds);
});

afterAll(async () => {
  await ds?.destroy();
  await dropDatabase(url);
});

async function tenant(): Promise<string> {
  const [row] = (await ds.query(`INSERT INTO tenants (name) VALUES ($1) RETURNING id::text AS id`, [
    `t-${randomUUID()}`,
  ])) as { id: string }[];
  return row.id;
}

/** A finished run in a new thread. */
async function run(
  tenantId: string,
  userId: string | null,
  prompt: string,
  answer: string | null,
  status = 'succeeded',
): Promise<{ runId: string; threadId: string }> {
  const threadId = randomUUID();
  const runId = randomUUID();
  await ds.query(`INSERT INTO threads (id, tenant_id, agent_id) VALUES ($1, $2, 'default')`, [
    threadId,
    tenantId,
  ]);
  await ds.query(
    `INSERT INTO runs (id, tenant_id, thread_id, agent_id, turn, status, input, output, metadata, finished_at)
     VALUES ($1, $2, $3, 'default', 0, $4, $5, $6, $7, now())`,
    [
      runId,
      tenantId,
      threadId,
      status,
      JSON.stringify({ prompt }),
      answer === null ? null : JSON.stringify({ answer }),
      JSON.stringify(userId === null ? {} : { user_id: userId }),
    ],
  );
  return { runId, threadId };
}

describe('MemoryStore (Postgres)', () => {
  let alice: MemoryOwner;
  let teal: { runId: string; threadId: string };
  let bicycle: { runId: string; threadId: string };

  beforeAll(async () => {
    const t = await tenant();
    alice = { tenantId: t, userId: 'alice' };
    teal = await run(t, 'alice', 'My favourite colour is teal.', 'Noted.');
    bicycle = await run(t, 'alice', 'My car is a red bicycle.', null);
    await run(t, 'alice', 'My favourite colour is grey.', null, 'failed');
    await run(t, 'bob', 'My favourite colour is orange.', 'Noted.');
    await run(t, null, 'My favourite colour is pink.', 'Noted.');
    await run(await tenant(), 'alice', 'My favourite colour is black.', 'Noted.');
  });

  it("embeds the user's succeeded turns of this tenant once", async () => {
    expect(await store.catchUp(alice, model, 100)).toBe(2);
    expect(await store.catchUp(alice, model, 100)).toBe(0);
    const rows = (await ds.query(
      `SELECT run_id::text AS run_id, thread_id::text AS thread_id, text, model, cardinality(embedding) AS dims
       FROM memories WHERE tenant_id = $1 ORDER BY text`,
      [alice.tenantId],
    )) as { run_id: string; thread_id: string; text: string; model: string; dims: number }[];
    expect(rows).toEqual([
      {
        run_id: bicycle.runId,
        thread_id: bicycle.threadId,
        text: 'User: My car is a red bicycle.',
        model: 'hash-embedding-v1',
        dims: 256,
      },
      {
        run_id: teal.runId,
        thread_id: teal.threadId,
        text: memoryText('My favourite colour is teal.', 'Noted.'),
        model: 'hash-embedding-v1',
        dims: 256,
      },
    ]);
  });

  it('embeds in bounded batches', async () => {
    const t = await tenant();
    const owner = { tenantId: t, userId: 'carol' };
    for (let i = 0; i < 3; i++) {
      await run(t, 'carol', `note ${i}`, null);
    }
    expect(await store.catchUp(owner, model, 2)).toBe(2);
    expect(await store.catchUp(owner, model, 2)).toBe(1);
  });

  it('searches by cosine similarity within the tenant and user, above the threshold', async () => {
    const query = 'What is my favourite colour?';
    const hits = await store.search(alice, model, query, { topK: 5, threshold: 0.25 });
    expect(hits.map((h) => h.run_id)).toEqual([teal.runId]);
    const expected = cosine(
      hashEmbedding(query),
      hashEmbedding(memoryText('My favourite colour is teal.', 'Noted.')),
    );
    expect(hits[0].score).toBeCloseTo(expected, 4);

    const all = await store.search(alice, model, query, { topK: 5, threshold: -1 });
    expect(all.map((h) => h.run_id)).toEqual([teal.runId, bicycle.runId]);
    expect(all[0].score).toBeGreaterThan(all[1].score);
    expect(all.map((h) => h.text).join()).not.toMatch(/orange|pink|black|grey/);

    const excluded = await store.search(alice, model, query, {
      topK: 5,
      threshold: -1,
      excludeRunId: teal.runId,
    });
    expect(excluded.map((h) => h.run_id)).toEqual([bicycle.runId]);
  });

  it('finds nothing for a user without memories', async () => {
    expect(
      await store.search({ ...alice, userId: 'nobody' }, model, 'colour', { topK: 5, threshold: -1 }),
    ).toEqual([]);
  });
});

describe('dotProductSql in Postgres', () => {
  it('equals the dot product computed in JavaScript, for sparse and dense queries', async () => {
    const stored = hashEmbedding('Checkpoints are stored in Postgres as small deltas.');
    for (const q of [
      hashEmbedding('checkpoints postgres'),
      Array.from({ length: 256 }, (_, i) => Math.sin(i + 1) / 11.3),
    ]) {
      const [row] = (await ds.query(
        `SELECT ${dotProductSql('x.e', q)} AS score
         FROM (SELECT $1::float8[] AS embedding) c, ${detoastedArray('c.embedding', 'x', 'float8')}`,
        [stored],
      )) as { score: number }[];
      const expected = stored.reduce((s, v, i) => s + v * q[i], 0);
      expect(Number(row.score)).toBeCloseTo(expected, 10);
    }
  });
});
