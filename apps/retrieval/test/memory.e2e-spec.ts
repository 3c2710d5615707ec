import type { Action } from '@switchyard/contracts';
import { TestStack, waitFor } from '@switchyard/testing';

// User memory end to end: the `memory` node embeds a user's finished turns (runs with
// metadata.user_id) and recalls related ones in the user's later threads — within the same tenant
// and the same user only — and the planner sees what was recalled in its notes.

const ADMIN = `admin_${'m'.repeat(24)}`;
const TEAL = 'Remember this: my favourite colour is teal.';
const ORANGE = 'Remember this: my favourite colour is orange.';
const BICYCLE = 'Remember this: my car is a red bicycle.';
const QUESTION = 'What is my favourite colour?';
let stack: TestStack;

beforeAll(async () => {
  stack = await TestStack.start({
    script: 'apps/retrieval/test/fixtures/memory.script.json',
    env: {
      SWITCHYARD_ADMIN_TOKEN: ADMIN,
      SWITCHYARD_MODEL_REGISTRY_TTL_MS: '200',
      SWITCHYARD_TENANT_CACHE_TTL_MS: '300',
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

interface MemoryResult {
  scope: string;
  user_id: string;
  embedded: number;
  found: number;
  items: { thread_id: string; run_id: string; turn: number; content: string; score: number }[];
}

interface Finished {
  run_id: string;
  thread_id: string;
  status: string;
  memory: Action;
  actions: Action[];
  output: { answer?: string } | null;
  rules: (string | null)[];
}

/** Starts a run in a new thread (or the given one), waits for its end; returns its memory action. */
async function ask(
  prompt: string,
  opts: { userId?: string; key?: string; threadId?: string } = {},
): Promise<Finished> {
  const key = opts.key ?? stack.key;
  await fetch(`${stack.llmUrl}/_requests`, { method: 'DELETE' });
  const res = await asKey(key, 'POST', '/v1/runs', {
    input: { prompt },
    ...(opts.threadId ? { thread_id: opts.threadId } : {}),
    ...(opts.userId !== undefined ? { metadata: { user_id: opts.userId } } : {}),
  });
  expect(res.status).toBe(202);
  const runId = res.body.run_id as string;
  let status = '';
  let output: Finished['output'] = null;
  await waitFor('the run to end', async () => {
    const run = (await asKey(key, 'GET', `/v1/runs/${runId}`)).body;
    status = run.status;
    output = run.output;
    return ['succeeded', 'failed', 'cancelled'].includes(status);
  });
  const actions = (await asKey(key, 'GET', `/v1/runs/${runId}/actions`)).body.actions as Action[];
  const memory = actions.find((a) => a.node === 'memory');
  expect(memory).toBeDefined();
  const requests = (await (await fetch(`${stack.llmUrl}/_requests`)).json()) as { rule: string | null }[];
  return {
    run_id: runId,
    thread_id: res.body.thread_id,
    status,
    memory: memory as Action,
    actions,
    output,
    rules: requests.map((r) => r.rule),
  };
}

async function otherTenantKey(name: string): Promise<string> {
  return (await stack.newTenant(name, ADMIN)).key;
}

describe('user memory across threads', () => {
  let teal: Finished;
  let bicycle: Finished;

  beforeAll(async () => {
    teal = await ask(TEAL, { userId: 'alice' });
    bicycle = await ask(BICYCLE, { userId: 'alice' });
    expect([teal.status, bicycle.status]).toEqual(['succeeded', 'succeeded']);
  });

  it("recalls a fact from the user's earlier thread in a new thread, and the planner sees it", async () => {
    const later = await ask(QUESTION, { userId: 'alice' });
    expect(later.status).toBe('succeeded');
    expect(later.thread_id).not.toBe(teal.thread_id);
    const result = later.memory.result as MemoryResult;
    expect(result).toMatchObject({ scope: 'user', user_id: 'alice' });
    expect(result.items[0]).toMatchObject({
      thread_id: teal.thread_id,
      run_id: teal.run_id,
      turn: 0,
      content: `User: ${TEAL}\nAssistant: Noted.`,
    });
    expect(result.items[0].score).toBeGreaterThanOrEqual(0.25);
    // Unrelated history stays out (the threshold), and so does the asking run itself.
    expect(result.items.map((i) => i.run_id)).not.toContain(bicycle.run_id);
    expect(result.items.map((i) => i.run_id)).not.toContain(later.run_id);
    expect(later.memory.summary).toContain(`[recalled] User: ${TEAL} Assistant: Noted.`);
    // The planner's system prompt carried the recalled fact (the scripted rule keys on it).
    expect(later.rules).toContain('planner-recalls-teal');

    const state = (await stack.api('GET', `/v1/threads/${later.thread_id}/state`)).body;
    expect(state.memory[0]).toMatchObject({ thread_id: teal.thread_id, run_id: teal.run_id });
  });

  it('archives each answered turn of a user as a step after output; the run keeps the answer', async () => {
    expect(teal.actions.slice(-2).map((a) => a.node)).toEqual(['output', 'archive']);
    expect(teal.actions[teal.actions.length - 1]).toMatchObject({
      result: { archived: 1, user_id: 'alice', model: 'hash-embedding-v1' },
      next: [],
    });
    expect(teal.output?.answer).toBe('Noted.');
    // The row is the archive step's: the turn's prompt and answer.
    const [row] = await stack.sql<{ text: string; model: string }>(
      'SELECT text, model FROM memories WHERE run_id = $1',
      [teal.run_id],
    );
    expect(row).toEqual({ text: `User: ${TEAL}\nAssistant: Noted.`, model: 'hash-embedding-v1' });
  });

  it('embeds each finished turn once, for its own tenant and user', async () => {
    const rows = await stack.sql<{ run_id: string; user_id: string; n: string }>(
      `SELECT run_id::text AS run_id, user_id, count(*) OVER (PARTITION BY run_id) AS n FROM memories`,
    );
    const byRun = new Map(rows.map((r) => [r.run_id, r]));
    expect(byRun.get(teal.run_id)).toMatchObject({ user_id: 'alice', n: '1' });
    expect(byRun.get(bicycle.run_id)).toMatchObject({ user_id: 'alice', n: '1' });
    expect(rows.every((r) => r.n === '1')).toBe(true);
  });

  it("never gives one user another user's memory", async () => {
    const orange = await ask(ORANGE, { userId: 'bob' });
    expect(orange.status).toBe('succeeded');
    const later = await ask(QUESTION, { userId: 'bob' });
    const result = later.memory.result as MemoryResult;
    expect(result).toMatchObject({ scope: 'user', user_id: 'bob' });
    expect(result.items.map((i) => i.run_id)).toEqual([orange.run_id]);
    expect(JSON.stringify(result)).not.toContain('teal');
    expect(later.memory.summary).not.toContain('teal');
    expect(later.rules).not.toContain('planner-recalls-teal');
  });

  it("never gives a user of another tenant the same user_id's memory", async () => {
    const other = await otherTenantKey('memory-other');
    const later = await ask(QUESTION, { userId: 'alice', key: other });
    expect(later.status).toBe('succeeded');
    const result = later.memory.result as MemoryResult;
    expect(result).toMatchObject({ scope: 'user', user_id: 'alice', embedded: 0, found: 0, items: [] });
    expect(later.memory.summary).not.toContain('teal');
    expect(later.rules).not.toContain('planner-recalls-teal');
  });

  it('keeps to the thread (lexical) without metadata.user_id, and says so', async () => {
    const first = await ask(TEAL);
    // No user, nothing to archive: the run ends with output.
    expect(first.actions[first.actions.length - 1].node).toBe('output');
    const later = await ask(QUESTION);
    expect(later.memory.result).toEqual({ found: 0 });
    expect(later.memory.summary).toMatch(
      /Thread-local lexical memory only: the run has no metadata\.user_id/,
    );
    expect(later.rules).not.toContain('planner-recalls-teal');
    // Same thread: the earlier turn is found by word overlap, as before user memory existed.
    const again = await ask('What is my favourite colour? Remember this', { threadId: first.thread_id });
    expect((again.memory.result as { found: number }).found).toBe(1);
    expect(again.memory.summary).toContain(`[recalled] ${TEAL}`);
  });
});

describe("user memory with the tenant's registry embedding model", () => {
  const MODEL = 'text-embedding-3-small';
  const admin = (method: string, path: string, body?: unknown) => asKey(ADMIN, method, path, body);
  let tenantId: string;
  const embeddingCalls = async (): Promise<number> =>
    ((await (await fetch(`${stack.llmUrl}/_requests`)).json()) as { path: string }[]).filter(
      (r) => r.path === '/v1/embeddings',
    ).length;

  beforeAll(async () => {
    [{ id: tenantId }] = await stack.sql<{ id: string }>(`SELECT id FROM tenants WHERE name = 'default'`);
    const vendor = await admin('POST', '/v1/admin/vendors', {
      name: 'memory-embedder',
      kind: 'openai',
      base_url: `${stack.llmUrl}/v1`,
    });
    expect(vendor.status).toBe(201);
    expect(
      (await admin('POST', `/v1/admin/vendors/${vendor.body.id}/keys`, { secret: 'sk-mem' })).status,
    ).toBe(201);
    const model = await admin('POST', '/v1/admin/models', {
      vendor_id: vendor.body.id,
      name: MODEL,
      category: 'embedding',
    });
    expect(model.status).toBe(201);
  });

  afterAll(async () => {
    await admin('PATCH', `/v1/admin/tenants/${tenantId}`, { memory_embedding_model: null });
  });

  it('refuses a model the registry does not have, naming the field', async () => {
    const res = await admin('PATCH', `/v1/admin/tenants/${tenantId}`, {
      memory_embedding_model: 'no-such-model',
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([
      {
        field: 'memory_embedding_model',
        message: '"no-such-model" is neither hash-embedding-v1 nor a registry model of category embedding',
      },
    ]);
    const [row] = await stack.sql<{ m: string | null }>(
      'SELECT memory_embedding_model AS m FROM tenants WHERE id = $1',
      [tenantId],
    );
    expect(row.m).toBeNull();
  });

  it("archives and recalls through the registry model; the user's earlier memories migrate as they are recalled", async () => {
    const set = await admin('PATCH', `/v1/admin/tenants/${tenantId}`, { memory_embedding_model: MODEL });
    expect(set.status).toBe(200);
    expect(set.body.memory_embedding_model).toBe(MODEL);
    // Each replica reads the tenant's choice at most every SWITCHYARD_TENANT_CACHE_TTL_MS (300 ms here).
    await new Promise((r) => setTimeout(r, 400));

    const later = await ask(QUESTION, { userId: 'alice' });
    expect(later.status).toBe('succeeded');
    const result = later.memory.result as MemoryResult & { model: string };
    expect(result).toMatchObject({ scope: 'user', user_id: 'alice', model: MODEL });
    // alice's turns remembered with the built-in model were embedded again with the new one…
    expect(result.embedded).toBeGreaterThanOrEqual(3);
    // …and the fact is recalled through it.
    expect(result.items.map((i) => i.content)).toContain(`User: ${TEAL}\nAssistant: Noted.`);
    expect(later.actions[later.actions.length - 1]).toMatchObject({
      node: 'archive',
      result: { archived: 1, user_id: 'alice', model: MODEL },
    });
    // The embeddings went to the registry model's vendor over HTTP (the scripted server).
    expect(await embeddingCalls()).toBeGreaterThanOrEqual(3);
    const rows = await stack.sql<{ model: string; n: string }>(
      `SELECT model, count(*)::text AS n FROM memories WHERE user_id = 'alice' AND tenant_id = $1 GROUP BY model ORDER BY model`,
      [tenantId],
    );
    const byModel = Object.fromEntries(rows.map((r) => [r.model, Number(r.n)]));
    // The old model's rows stay; the new model has every finished turn plus the one just archived.
    expect(byModel['hash-embedding-v1']).toBeGreaterThanOrEqual(3);
    expect(byModel[MODEL]).toBe(byModel['hash-embedding-v1'] + 1);
  }, 60_000);
});
