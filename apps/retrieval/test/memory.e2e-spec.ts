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
    env: { SWITCHYARD_ADMIN_TOKEN: ADMIN },
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
  await waitFor('the run to end', async () => {
    status = (await asKey(key, 'GET', `/v1/runs/${runId}`)).body.status;
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
