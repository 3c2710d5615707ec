import type { Action, Usage } from '@switchyard/contracts';
import { SecretBox } from '@switchyard/config';
import { minimalPdf } from '@switchyard/knowledge';
import { TestStack, sleep, waitFor } from '@switchyard/testing';

// Knowledge collections end to end: the gateway's collection routes (create, ingest, search in
// three modes, tenant isolation) and the `retrieval` tool called by a scripted planner, with
// runtime resolution of its data sources (by index_name, legacy collection_configs, unknown block).

const ADMIN = `admin_${'k'.repeat(24)}`;
const EMBEDDING_KEY = 'sk-embeddings-only';
const REGISTRY_TTL_MS = 200;
const OUTPUT_CAP = 2048;
const RANDOM = '00000000-0000-4000-8000-000000000000';
let stack: TestStack;

beforeAll(async () => {
  stack = await TestStack.start({
    script: 'apps/retrieval/test/fixtures/retrieval.script.json',
    env: {
      SWITCHYARD_ADMIN_TOKEN: ADMIN,
      SWITCHYARD_MODEL_REGISTRY_TTL_MS: String(REGISTRY_TTL_MS),
      SWITCHYARD_TOOL_OUTPUT_MAX_BYTES: String(OUTPUT_CAP),
    },
  });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read whatever JSON the gateway answered
type Json = any;

/** A request to the gateway with another API key (another tenant's, or none valid). */
function asKey(
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Json }> {
  return stack.api(method, path, body, { Authorization: `Bearer ${key}` });
}

async function otherTenantKey(name: string): Promise<string> {
  return (await stack.newTenant(name, ADMIN)).key;
}

async function runToEnd(
  prompt: string,
  key?: string,
): Promise<{ run_id: string; status: string; actions: Action[]; output: Json }> {
  const call = (method: string, path: string, body?: unknown) =>
    key ? asKey(key, method, path, body) : stack.api(method, path, body);
  const res = await call('POST', '/v1/runs', { input: { prompt } });
  expect(res.status).toBe(202);
  const runId = res.body.run_id as string;
  let run: Json;
  await waitFor('the run to end', async () => {
    run = (await call('GET', `/v1/runs/${runId}`)).body;
    return ['succeeded', 'failed', 'cancelled'].includes(run.status);
  });
  const actions = (await call('GET', `/v1/runs/${runId}/actions`)).body.actions as Action[];
  return { run_id: runId, status: run.status, actions, output: run.output };
}

const DOCS = [
  {
    text: 'Checkpoints are stored in Postgres: every step of a run writes a small delta to the state_deltas table.',
    metadata: { source: 'checkpoints' },
  },
  {
    text: 'NATS JetStream carries tasks and deltas between the services as messages.',
    metadata: { source: 'nats' },
  },
  { text: 'The cat sat on the warm mat and purred all afternoon long.', metadata: { source: 'cat' } },
  {
    text: 'Redis Streams hold the run events that clients follow over server-sent events.',
    metadata: { source: 'redis' },
  },
];
// plainto_tsquery ANDs its words, so the full-text query uses words of the relevant document only.
const QUERY = 'checkpoints stored in postgres';

describe('knowledge collections', () => {
  let id: string;
  let collection: {
    id: string;
    indexingList: {
      index_name: string;
      status: string;
      error?: string;
      collection_configs: Record<string, string>;
    }[];
  };

  beforeAll(async () => {
    const created = await stack.api('POST', '/v1/collections', {
      name: 'Switchyard docs',
      index_sets: [
        { index_name: 'fine', chunk_size: 60, chunk_overlap: 10 },
        { index_name: 'coarse' },
        { index_name: 'remote', model: 'text-embedding-ada-002' },
      ],
    });
    expect(created.status).toBe(201);
    id = created.body.id;
    expect(created.body.indexingList.map((i: { status: string }) => i.status)).toEqual([
      'pending',
      'pending',
      'pending',
    ]);
    const ingested = await stack.api('POST', `/v1/collections/${id}/documents`, { documents: DOCS });
    expect(ingested.status).toBe(202);
    expect(ingested.body).toEqual({ ingested: DOCS.length });
    collection = (await stack.api('GET', `/v1/collections/${id}`)).body;
  });

  it('is a block with an indexingList whose sets are done, or failed with a reason', () => {
    expect(collection.id).toBe(id);
    expect(collection.indexingList.map((i) => [i.index_name, i.status])).toEqual([
      ['fine', 'done'],
      ['coarse', 'done'],
      ['remote', 'failed'],
    ]);
    expect(collection.indexingList[2].error).toMatch(/unknown embedding model "text-embedding-ada-002"/);
    expect(collection.indexingList[0].collection_configs).toMatchObject({
      model: 'hash-embedding-v1',
      vdb_type: 'postgres-exact',
      set_name: 'fine',
    });
    expect(Object.keys(collection.indexingList[0].collection_configs).sort()).toEqual([
      'collection_name',
      'model',
      'set_name',
      'user_id',
      'vdb_type',
    ]);
  });

  it('chunks per index set: the fine set holds more chunks than the coarse one', async () => {
    const rows = await stack.sql<{ index_name: string; n: string }>(
      'SELECT index_name, count(*) AS n FROM chunks WHERE collection_id = $1 GROUP BY index_name',
      [id],
    );
    const n = Object.fromEntries(rows.map((r) => [r.index_name, Number(r.n)]));
    expect(n['coarse']).toBe(DOCS.length);
    expect(n['fine']).toBeGreaterThan(DOCS.length);
    expect(n['remote']).toBeUndefined();
  });

  it.each(['vector', 'fulltext', 'hybrid'])('finds the relevant document first (%s)', async (mode) => {
    const res = await stack.api('POST', `/v1/collections/${id}/search`, {
      query: QUERY,
      mode,
      index_name: 'coarse',
    });
    expect(res.status).toBe(200);
    const results = res.body.results as {
      text: string;
      score: number;
      metadata: { source: string };
      index_name: string;
    }[];
    expect(results.length).toBeGreaterThan(0);
    expect(results[0].metadata.source).toBe('checkpoints');
    expect(results.every((r) => r.index_name === 'coarse')).toBe(true);
    const scores = results.map((r) => r.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    if (mode === 'hybrid') {
      // Reciprocal rank fusion (k = 60) of two rankings: at most 2/61.
      expect(results[0].score).toBeCloseTo(2 / 61, 6);
    }
    if (mode === 'fulltext') {
      expect(results.map((r) => r.metadata.source)).not.toContain('cat');
    }
  });

  it('searches every done index set when none is named, and honours top_k and threshold', async () => {
    const all = (await stack.api('POST', `/v1/collections/${id}/search`, { query: QUERY })).body.results;
    expect(new Set(all.map((r: { index_name: string }) => r.index_name))).toEqual(
      new Set(['fine', 'coarse']),
    );
    expect(all.length).toBeLessThanOrEqual(10);

    const one = await stack.api('POST', `/v1/collections/${id}/search`, { query: QUERY, top_k: 1 });
    expect(one.body.results).toHaveLength(1);
    expect(one.body.results[0].metadata.source).toBe('checkpoints');

    const everything = (
      await stack.api('POST', `/v1/collections/${id}/search`, {
        query: QUERY,
        index_name: 'coarse',
        threshold: -1,
      })
    ).body.results;
    expect(everything).toHaveLength(DOCS.length);
    const strict = (
      await stack.api('POST', `/v1/collections/${id}/search`, {
        query: QUERY,
        index_name: 'coarse',
        threshold: 0.3,
      })
    ).body.results;
    expect(strict.length).toBeGreaterThan(0);
    expect(strict.length).toBeLessThan(DOCS.length);
    expect(strict.every((r: { score: number }) => r.score >= 0.3)).toBe(true);
    expect(strict.map((r: { metadata: { source: string } }) => r.metadata.source)).not.toContain('cat');

    const purr = (
      await stack.api('POST', `/v1/collections/${id}/search`, {
        query: 'purred',
        mode: 'fulltext',
        index_name: 'coarse',
      })
    ).body.results;
    expect(purr.map((r: { metadata: { source: string } }) => r.metadata.source)).toEqual(['cat']);
  });

  it('answers 400 for an invalid body or an unknown index set, 404 for an unknown collection', async () => {
    expect((await stack.api('POST', '/v1/collections', { name: 'x', index_sets: [] })).status).toBe(400);
    expect(
      (
        await stack.api('POST', '/v1/collections', {
          name: 'x',
          index_sets: [{ index_name: 'a', chunk_size: 100, chunk_overlap: 100 }],
        })
      ).status,
    ).toBe(400);
    expect(
      (await stack.api('POST', `/v1/collections/${id}/search`, { query: 'x', mode: 'semantic' })).status,
    ).toBe(400);
    const unknownSet = await stack.api('POST', `/v1/collections/${id}/search`, {
      query: 'x',
      index_name: 'nope',
    });
    expect(unknownSet.status).toBe(400);
    expect(unknownSet.body.error.message).toMatch(/no index set "nope"/);
    expect((await stack.api('GET', `/v1/collections/${RANDOM}`)).status).toBe(404);
  });

  it("answers 404 on every collection route with another tenant's key", async () => {
    const other = await otherTenantKey('knowledge-other');
    for (const [method, path, body] of [
      ['GET', `/v1/collections/${id}`, undefined],
      ['POST', `/v1/collections/${id}/documents`, { documents: [{ text: 'intruder' }] }],
      ['POST', `/v1/collections/${id}/search`, { query: QUERY }],
    ] as const) {
      const res = await asKey(other, method, path, body);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    const docs = await stack.sql<{ n: string }>(
      `SELECT count(*) AS n FROM documents WHERE collection_id = $1`,
      [id],
    );
    expect(Number(docs[0].n)).toBe(DOCS.length);
  });

  describe('the retrieval tool in an agent run', () => {
    const retrievalOf = (actions: Action[]): Action => {
      const a = actions.find((x) => x.node === 'retrieval');
      expect(a).toBeDefined();
      return a as Action;
    };

    it('is offered to the planner', async () => {
      const tools = (await stack.api('GET', '/v1/tools')).body.tools as { name: string; service: string }[];
      expect(tools.find((t) => t.name === 'retrieval')).toMatchObject({ service: 'retrieval' });
    });

    it('resolves a data source by block id + index_name and hands passages to reflection', async () => {
      const run = await runToEnd(`[kb:${id}] [index:fine] [q:${QUERY}] What do you know?`);
      expect(run.status).toBe('succeeded');
      const a = retrievalOf(run.actions);
      expect(a.error).toBeUndefined();
      expect(a.next).toEqual(['reflection']);
      const result = a.result as {
        results: { text: string; index_name: string; score: number }[];
        resolved: unknown;
      };
      expect(result.resolved).toEqual([{ id, index_name: 'fine', via: 'index_name' }]);
      expect(result.results.length).toBeGreaterThan(0);
      expect(result.results.length).toBeLessThanOrEqual(3);
      expect(result.results.every((r) => r.index_name === 'fine')).toBe(true);
      expect(result.results[0].text).toMatch(/checkpoints|postgres/i);
      expect(a.context?.[0]).toMatchObject({ type: 'text', usage_type: 'reference', important: true });
      expect(a.context).toHaveLength(result.results.length);
      expect(run.actions.map((x) => x.node)).toContain('reflection');
    });

    it('answers from the retrieved passage', async () => {
      // The answer names a table that only the retrieved chunk mentions, not the prompt.
      const prompt = `[kb:${id}] [index:coarse] [q:${QUERY}] Where do steps go?`;
      expect(prompt).not.toContain('state_deltas');
      const run = await runToEnd(prompt);
      expect(run.status).toBe('succeeded');
      const a = retrievalOf(run.actions);
      expect((a.result as { results: { text: string }[] }).results[0].text).toContain('state_deltas');
      expect(run.output.answer).toBe(
        'According to the knowledge base, every step writes a small delta to the state_deltas table.',
      );
      const nodes = run.actions.map((x) => x.node);
      expect(nodes.indexOf('retrieval')).toBeLessThan(nodes.lastIndexOf('output'));
    });

    it('honours a legacy data source that embeds collection_configs', async () => {
      const coarse = collection.indexingList[1].collection_configs;
      const run = await runToEnd(
        `[kb-legacy:${id}] [coll:${coarse['collection_name']}] [set:${coarse['set_name']}] [q:${QUERY}]`,
      );
      expect(run.status).toBe('succeeded');
      const a = retrievalOf(run.actions);
      expect(a.error).toBeUndefined();
      const result = a.result as {
        results: { index_name: string; metadata: { source: string } }[];
        resolved: unknown;
      };
      expect(result.resolved).toEqual([{ id, index_name: 'renamed-away', via: 'legacy' }]);
      expect(result.results).toHaveLength(2);
      expect(result.results[0]).toMatchObject({ index_name: 'coarse', metadata: { source: 'checkpoints' } });
    });

    it('records an unknown block as the action error; the run still succeeds', async () => {
      const run = await runToEnd(`[kb-unknown] [q:${QUERY}]`);
      expect(run.status).toBe('succeeded');
      const a = retrievalOf(run.actions);
      expect(a.error?.code).toBe('unknown_block');
      expect(a.error?.message).toContain(RANDOM);
      expect(a.next).toEqual(['reflection']);
    });

    it("cannot reach another tenant's collection", async () => {
      const other = await otherTenantKey('knowledge-run-other');
      const run = await runToEnd(`[kb:${id}] [index:fine] [q:${QUERY}]`, other);
      expect(run.status).toBe('succeeded');
      const a = retrievalOf(run.actions);
      expect(a.error?.code).toBe('unknown_block');
    });
  });
});

describe('the lifecycle of collections and documents', () => {
  it('lists collections and documents, deletes a document (search no longer finds it) and a collection', async () => {
    const key = await otherTenantKey('knowledge-lifecycle');
    const stranger = await otherTenantKey('knowledge-lifecycle-other');
    const call = (method: string, path: string, body?: unknown) => asKey(key, method, path, body);
    const a = (await call('POST', '/v1/collections', { name: 'A', index_sets: [{ index_name: 'main' }] }))
      .body;
    const b = (await call('POST', '/v1/collections', { name: 'B', index_sets: [{ index_name: 'main' }] }))
      .body;
    expect((await call('POST', `/v1/collections/${a.id}/documents`, { documents: DOCS })).status).toBe(202);

    const listed = await call('GET', '/v1/collections');
    expect(listed.status).toBe(200);
    expect(
      listed.body.collections.map((c: { id: string; documents: number }) => [c.id, c.documents]),
    ).toEqual([
      [a.id, DOCS.length],
      [b.id, 0],
    ]);
    expect(listed.body.collections[0].indexingList[0]).toMatchObject({ index_name: 'main', status: 'done' });
    expect((await asKey(stranger, 'GET', '/v1/collections')).body.collections).toEqual([]);

    const docs = (await call('GET', `/v1/collections/${a.id}/documents`)).body.documents as {
      id: string;
      text: string;
      metadata: { source: string };
      chunks: number;
    }[];
    // One upload's documents share their created_at: their order among themselves is by id.
    expect(docs.map((d) => d.metadata.source).sort()).toEqual(['cat', 'checkpoints', 'nats', 'redis']);
    expect(docs.every((d) => d.chunks > 0)).toBe(true);
    const checkpoints = docs.find((d) => d.metadata.source === 'checkpoints')!;
    const before = await call('POST', `/v1/collections/${a.id}/search`, { query: QUERY, top_k: 1 });
    expect(before.body.results[0].text).toContain('Checkpoints are stored in Postgres');

    expect(
      (await asKey(stranger, 'DELETE', `/v1/collections/${a.id}/documents/${checkpoints.id}`)).status,
    ).toBe(404);
    const gone = await call('DELETE', `/v1/collections/${a.id}/documents/${checkpoints.id}`);
    expect(gone.status).toBe(200);
    expect(gone.body).toEqual({ deleted: true, id: checkpoints.id });
    const after = await call('POST', `/v1/collections/${a.id}/search`, { query: QUERY, top_k: 4 });
    expect(after.body.results.map((r: { text: string }) => r.text).join(' ')).not.toContain(
      'Checkpoints are stored',
    );
    expect((await call('GET', `/v1/collections/${a.id}/documents`)).body.documents).toHaveLength(
      DOCS.length - 1,
    );
    expect((await call('DELETE', `/v1/collections/${a.id}/documents/${checkpoints.id}`)).status).toBe(404);

    expect((await asKey(stranger, 'DELETE', `/v1/collections/${a.id}`)).status).toBe(404);
    expect((await call('DELETE', `/v1/collections/${a.id}`)).body).toEqual({ deleted: true, id: a.id });
    expect((await call('GET', `/v1/collections/${a.id}`)).status).toBe(404);
    expect((await call('GET', `/v1/collections/${a.id}/documents`)).status).toBe(404);
    const chunks = await stack.sql<{ n: string }>(
      'SELECT count(*) AS n FROM chunks WHERE collection_id = $1',
      [a.id],
    );
    expect(Number(chunks[0].n)).toBe(0);
    expect((await call('GET', '/v1/collections')).body.collections.map((c: { id: string }) => c.id)).toEqual([
      b.id,
    ]);
  });
});

describe('a retrieval result over the output cap', () => {
  it('is shrunk in the action and kept whole by reference, like every tool', async () => {
    const created = await stack.api('POST', '/v1/collections', {
      name: 'big passages',
      index_sets: [{ index_name: 'main', chunk_size: 1000, chunk_overlap: 0 }],
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const documents = [1, 2, 3, 4].map((n) => ({
      text: `Zebra report ${n}: ${'stripes and grass '.repeat(45)}`.trim(),
      metadata: { n },
    }));
    expect((await stack.api('POST', `/v1/collections/${id}/documents`, { documents })).status).toBe(202);
    const run = await runToEnd(`[kb:${id}] [index:main] [q:zebra report]`);
    expect(run.status).toBe('succeeded');
    const a = run.actions.find((x) => x.node === 'retrieval') as Action;
    expect(a.error).toBeUndefined();
    const result = a.result as { output_truncated: boolean; reference: string; output_bytes: number };
    expect(result.output_truncated).toBe(true);
    expect(result.reference).toMatch(/^tool-output:[0-9a-f-]{36}$/);
    expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThanOrEqual(OUTPUT_CAP);
    const full = await stack.api('GET', `/v1/runs/${run.run_id}/tool-outputs/${result.reference}`);
    expect(full.status).toBe(200);
    expect(full.body).toMatchObject({ tool: 'retrieval', bytes: result.output_bytes });
    expect(full.body.content.results).toHaveLength(3);
    expect(full.body.content.results[0].text).toMatch(/^Zebra report \d: stripes and grass/);
    expect(run.actions.map((x) => x.node)).toContain('reflection');
  });
});

describe('ingesting files (multipart/form-data)', () => {
  let id: string;
  const upload = async (
    parts: { name: string; type: string; data: Buffer | string }[],
    metadata?: string,
    key = stack.key,
  ): Promise<{ status: number; body: Json }> => {
    const form = new FormData();
    for (const p of parts) {
      form.append(
        'files',
        new Blob([typeof p.data === 'string' ? p.data : new Uint8Array(p.data)], { type: p.type }),
        p.name,
      );
    }
    if (metadata !== undefined) {
      form.append('metadata', metadata);
    }
    const res = await fetch(`${stack.gatewayUrl}/v1/collections/${id}/documents`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}` },
      body: form,
    });
    return { status: res.status, body: await res.json() };
  };
  const documentCount = async () =>
    Number(
      (
        await stack.sql<{ n: string }>('SELECT count(*) AS n FROM documents WHERE collection_id = $1', [id])
      )[0].n,
    );

  beforeAll(async () => {
    const created = await stack.api('POST', '/v1/collections', {
      name: 'uploads',
      index_sets: [{ index_name: 'main' }],
    });
    expect(created.status).toBe(201);
    id = created.body.id;
  });

  it('parses md, csv and pdf files into documents that search finds, with file metadata', async () => {
    const res = await upload(
      [
        {
          name: 'runbook.md',
          type: 'text/markdown',
          data: '# Runbook\n\nRestart the orchestrator with a rollout.',
        },
        { name: 'ports.csv', type: 'text/csv', data: 'service,port\ngateway,8080\nplanner,8081\n' },
        {
          name: 'report.pdf',
          type: 'application/pdf',
          data: minimalPdf('Quarterly revenue grew twelve percent'),
        },
      ],
      JSON.stringify({ source: 'upload' }),
    );
    expect(res).toEqual({ status: 202, body: { ingested: 3 } });
    const block = (await stack.api('GET', `/v1/collections/${id}`)).body;
    expect(block.indexingList[0].status).toBe('done');

    const search = async (query: string) =>
      (await stack.api('POST', `/v1/collections/${id}/search`, { query, mode: 'fulltext', top_k: 1 })).body
        .results as { text: string; metadata: Record<string, unknown> }[];
    const [pdf] = await search('quarterly revenue');
    expect(pdf.text).toBe('Quarterly revenue grew twelve percent');
    expect(pdf.metadata).toEqual({
      source: 'upload',
      filename: 'report.pdf',
      content_type: 'application/pdf',
      kind: 'pdf',
    });
    const [table] = await search('planner 8081');
    expect(table.text).toContain('service: planner; port: 8081');
    expect(table.metadata).toMatchObject({ filename: 'ports.csv', kind: 'csv' });
    const [md] = await search('restart orchestrator');
    expect(md.metadata).toMatchObject({ filename: 'runbook.md', kind: 'md' });
  });

  it('refuses the whole upload, naming the file, when one file cannot be ingested', async () => {
    const before = await documentCount();
    const good = { name: 'ok.txt', type: 'text/plain', data: 'fine text' };
    const image = await upload([
      good,
      { name: 'logo.png', type: 'image/png', data: Buffer.from([137, 80, 78, 71]) },
    ]);
    expect(image.status).toBe(415);
    expect(image.body.error).toMatchObject({
      code: 'unsupported_media_type',
      message: expect.stringContaining('logo.png'),
    });
    const broken = await upload([good, { name: 'data.json', type: 'application/json', data: '{"a":' }]);
    expect(broken.status).toBe(400);
    expect(broken.body.error.message).toMatch(/^file "data.json": invalid JSON/);
    const empty = await upload([{ name: 'blank.txt', type: 'text/plain', data: '   ' }]);
    expect(empty.status).toBe(400);
    expect(empty.body.error.message).toContain('blank.txt');
    const badMetadata = await upload([good], '[1, 2]');
    expect(badMetadata.status).toBe(400);
    expect(badMetadata.body.error.details).toEqual([{ field: 'metadata', message: 'not a JSON object' }]);
    const tooBig = await upload([
      { name: 'huge.txt', type: 'text/plain', data: Buffer.alloc(21 * 1024 * 1024, 97) },
    ]);
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.error.code).toBe('payload_too_large');
    const noFiles = await upload([], JSON.stringify({ a: 1 }));
    expect(noFiles.status).toBe(400);
    expect(await documentCount()).toBe(before);
  });

  it("answers 401 without a key and 404 for another tenant's collection", async () => {
    const part = [{ name: 'a.txt', type: 'text/plain', data: 'x' }];
    expect((await upload(part, undefined, 'sy_live_not-a-key')).status).toBe(401);
    const other = await otherTenantKey('uploads-other');
    expect((await upload(part, undefined, other)).status).toBe(404);
  });
});

describe('an index set embedded by a model of the model registry', () => {
  const admin = (method: string, path: string, body?: unknown) => asKey(ADMIN, method, path, body);
  let modelId: string;
  let tenantId: string;
  let id: string;

  interface LlmRecord {
    path: string;
    status?: number;
    messages_count: number;
    api_key_fingerprint: string | null;
  }
  const embeddingRequests = async (): Promise<LlmRecord[]> =>
    ((await (await fetch(`${stack.llmUrl}/_requests`)).json()) as LlmRecord[]).filter(
      (r) => r.path === '/v1/embeddings',
    );

  beforeAll(async () => {
    // The vendor's base URL serves nothing: its embeddings come from an endpoint of their own.
    const vendor = await admin('POST', '/v1/admin/vendors', {
      name: 'embedder',
      kind: 'openai',
      base_url: 'http://127.0.0.1:9/v1',
    });
    expect(vendor.status).toBe(201);
    const endpoint = await admin('POST', `/v1/admin/vendors/${vendor.body.id}/endpoints`, {
      url: `${stack.llmUrl}/v1`,
      categories: ['embedding'],
    });
    expect(endpoint.status).toBe(201);
    expect(
      (await admin('POST', `/v1/admin/vendors/${vendor.body.id}/keys`, { secret: EMBEDDING_KEY })).status,
    ).toBe(201);
    const model = await admin('POST', '/v1/admin/models', {
      vendor_id: vendor.body.id,
      name: 'text-embedding-3-small',
      category: 'embedding',
      price_per_1k_input: 0.02,
    });
    expect(model.status).toBe(201);
    modelId = model.body.id;
    [{ id: tenantId }] = await stack.sql<{ id: string }>(`SELECT id FROM tenants WHERE name = 'default'`);
    await sleep(REGISTRY_TTL_MS * 3); // every service's registry cache has expired

    const created = await stack.api('POST', '/v1/collections', {
      name: 'registry-embedded',
      index_sets: [{ index_name: 'remote', model: 'text-embedding-3-small' }],
    });
    expect(created.status).toBe(201);
    id = created.body.id;
  });

  it("ingests and searches with the registry model at its vendor's embedding endpoint, the vendor key, metered", async () => {
    const before = (await embeddingRequests()).length;
    const ingested = await stack.api('POST', `/v1/collections/${id}/documents`, { documents: DOCS });
    expect(ingested.status).toBe(202);
    const block = (await stack.api('GET', `/v1/collections/${id}`)).body;
    expect(block.indexingList[0]).toMatchObject({ index_name: 'remote', status: 'done' });
    const [dims] = await stack.sql<{ n: number }>(
      `SELECT DISTINCT cardinality(embedding) AS n FROM chunks WHERE collection_id = $1`,
      [id],
    );
    expect(dims.n).toBe(64); // the scripted server's dimensions, not the built-in 256

    const found = await stack.api('POST', `/v1/collections/${id}/search`, {
      query: QUERY,
      mode: 'vector',
      top_k: 2,
    });
    expect(found.status).toBe(200);
    expect(found.body.results[0].metadata).toEqual({ source: 'checkpoints' });

    const calls = (await embeddingRequests()).slice(before);
    expect(calls.length).toBeGreaterThanOrEqual(2); // the chunks, then the query
    expect(calls.every((c) => c.status === 200)).toBe(true);
    expect(new Set(calls.map((c) => c.api_key_fingerprint))).toEqual(
      new Set([SecretBox.fingerprint(EMBEDDING_KEY)]),
    );
    const rows = await stack.sql<{ prompt_tokens: number; cost: string; run_id: string | null }>(
      `SELECT prompt_tokens, cost, run_id FROM model_usage WHERE model_id = $1 AND tenant_id = $2 ORDER BY id`,
      [modelId, tenantId],
    );
    expect(rows).toHaveLength(calls.length);
    expect(rows.every((r) => r.prompt_tokens > 0 && Number(r.cost) > 0 && r.run_id === null)).toBe(true);
  });

  it("meters the retrieval tool's query embedding as the action's usage", async () => {
    const run = await runToEnd(`[kb:${id}] [index:remote] [q:${QUERY}]`);
    expect(run.status).toBe('succeeded');
    const a = run.actions.find((x) => x.node === 'retrieval') as Action;
    expect(a.error).toBeUndefined();
    expect((a.result as { results: { metadata: unknown }[] }).results[0].metadata).toEqual({
      source: 'checkpoints',
    });
    const rows = await stack.sql<Usage>(
      `SELECT prompt_tokens, completion_tokens, total_tokens FROM model_usage
       WHERE run_id = $1 AND node = 'retrieval' AND model_id = $2`,
      [run.run_id, modelId],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].prompt_tokens).toBeGreaterThan(0);
    expect(a.usage).toEqual(rows[0]);
  });

  it('fails an index set whose registry model has no key the tenant may use, with the reason', async () => {
    const other = await otherTenantKey('embeddings-without-key');
    const [{ id: otherTenant }] = await stack.sql<{ id: string }>(`SELECT id FROM tenants WHERE name = $1`, [
      'embeddings-without-key',
    ]);
    // A second embedding model, of a vendor that has no key at all.
    const vendor = await admin('POST', '/v1/admin/vendors', {
      name: 'keyless',
      kind: 'openai',
      base_url: `${stack.llmUrl}/v1`,
    });
    expect(vendor.status).toBe(201);
    const model = await admin('POST', '/v1/admin/models', {
      vendor_id: vendor.body.id,
      name: 'keyless-embedder',
      category: 'embedding',
    });
    expect(model.status).toBe(201);
    await sleep(REGISTRY_TTL_MS * 3);
    const created = await asKey(other, 'POST', '/v1/collections', {
      name: 'no-key',
      index_sets: [{ index_name: 'x', model: 'keyless-embedder' }],
    });
    expect(created.status).toBe(201);
    const before = (await embeddingRequests()).length;
    const ingested = await asKey(other, 'POST', `/v1/collections/${created.body.id}/documents`, {
      documents: DOCS,
    });
    expect(ingested.status).toBe(202);
    const block = (await asKey(other, 'GET', `/v1/collections/${created.body.id}`)).body;
    expect(block.indexingList[0].status).toBe('failed');
    expect(block.indexingList[0].error).toMatch(/no active key for model "keyless-embedder"/);
    expect((await embeddingRequests()).length).toBe(before);
    const usage = await stack.sql(`SELECT 1 FROM model_usage WHERE tenant_id = $1`, [otherTenant]);
    expect(usage).toHaveLength(0);

    // Re-indexing: the vendor gets a key; the stored documents are indexed again, no new upload.
    const collection = created.body.id as string;
    expect(
      (await asKey(other, 'POST', `/v1/collections/${collection}/reindex`, { index_name: 'nope' })).status,
    ).toBe(400);
    expect((await stack.api('POST', `/v1/collections/${collection}/reindex`, {})).status).toBe(404);
    expect(
      (await admin('POST', `/v1/admin/vendors/${vendor.body.id}/keys`, { secret: EMBEDDING_KEY })).status,
    ).toBe(201);
    await sleep(REGISTRY_TTL_MS * 3);
    const reindexed = await asKey(other, 'POST', `/v1/collections/${collection}/reindex`, {});
    expect(reindexed.status).toBe(202);
    expect(reindexed.body.reindexed).toBe(DOCS.length);
    expect(reindexed.body.indexingList).toEqual([
      expect.objectContaining({ index_name: 'x', status: 'done' }),
    ]);
    const chunks = async () =>
      (
        await stack.sql<{ id: string }>(`SELECT id::text FROM chunks WHERE collection_id = $1 ORDER BY id`, [
          collection,
        ])
      ).map((c) => c.id);
    const first = await chunks();
    expect(first.length).toBeGreaterThan(0);
    const found = await asKey(other, 'POST', `/v1/collections/${collection}/search`, {
      query: QUERY,
      mode: 'vector',
      top_k: 1,
    });
    expect(found.status).toBe(200);
    expect(found.body.results[0].metadata).toEqual({ source: 'checkpoints' });
    // Again: the set is rebuilt whole (new chunks in place of the old, as many), not added to.
    expect(
      (await asKey(other, 'POST', `/v1/collections/${collection}/reindex`, { index_name: 'x' })).status,
    ).toBe(202);
    const second = await chunks();
    expect(second).toHaveLength(first.length);
    expect(second.some((c) => first.includes(c))).toBe(false);
  });
});
