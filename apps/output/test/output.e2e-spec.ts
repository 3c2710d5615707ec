import type { Action, PlannerResult, RunEvent } from '@switchyard/contracts';
import { TestStack, readSse } from '@switchyard/testing';

// Intake with user profiles and the output node's tools, end to end: real services, real HTTP,
// the scripted model server. What reached the model is read from the rules that answered
// (GET /_requests): a rule keyed by a marker answers only when that marker was in the prompt.

const ADMIN = `admin_${'y'.repeat(24)}`;
let stack: TestStack;

beforeAll(async () => {
  stack = await TestStack.start({
    script: 'apps/output/test/fixtures/output.script.json',
    env: { SWITCHYARD_ADMIN_TOKEN: ADMIN },
  });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

interface Finished {
  runId: string;
  threadId: string;
  events: RunEvent[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the run as the gateway answers it
  run: any;
}

/** Starts a run and follows its event stream to `done`. */
async function runToEnd(body: Record<string, unknown>, key = stack.key): Promise<Finished> {
  const created = await stack.api('POST', '/v1/runs', body, { Authorization: `Bearer ${key}` });
  expect(created.status).toBe(202);
  const runId = created.body.run_id as string;
  const read = await readSse(`${stack.gatewayUrl}/v1/runs/${runId}/events`, {
    headers: { Authorization: `Bearer ${key}` },
    timeoutMs: 60_000,
  });
  expect(read.status).toBe(200);
  const events = read.frames.map((f) => JSON.parse(f.data) as RunEvent);
  const run = await stack.api('GET', `/v1/runs/${runId}`, undefined, { Authorization: `Bearer ${key}` });
  expect(run.status).toBe(200);
  return { runId, threadId: created.body.thread_id as string, events, run: run.body };
}

/** The names of the script rules that answered since the last `clearRequests`. */
async function rulesUsed(): Promise<string[]> {
  const res = await fetch(`${stack.llmUrl}/_requests`);
  return ((await res.json()) as { rule: string | null }[]).map((r) => r.rule ?? '(none)');
}

async function clearRequests(): Promise<void> {
  await fetch(`${stack.llmUrl}/_requests`, { method: 'DELETE' });
}

async function putProfile(userId: string, profile: unknown, key = stack.key) {
  return stack.api('PUT', `/v1/users/${encodeURIComponent(userId)}/profile`, profile, {
    Authorization: `Bearer ${key}`,
  });
}

async function otherTenantKey(): Promise<string> {
  return (await stack.newTenant('other', ADMIN)).key;
}

const ADA = { name: 'Ada Lovelace', language: 'English', interests: ['[profile-ada] analytical engines'] };

describe('user profiles API', () => {
  it('stores, reads, replaces and deletes a profile per tenant and user', async () => {
    const put = await putProfile('ada', ADA);
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ user_id: 'ada', profile: ADA, updated_at: expect.any(String) });
    expect((await stack.api('GET', '/v1/users/ada/profile')).body.profile).toEqual(ADA);

    expect((await putProfile('temp', { a: 1 })).status).toBe(200);
    expect((await putProfile('temp', { b: 2 })).body.profile).toEqual({ b: 2 });
    expect((await stack.api('DELETE', '/v1/users/temp/profile')).status).toBe(204);
    expect((await stack.api('GET', '/v1/users/temp/profile')).status).toBe(404);
    expect((await stack.api('DELETE', '/v1/users/temp/profile')).status).toBe(404);
  });

  it('refuses bodies that are not a JSON object (400), over 64 KiB (413), and bad user ids (400)', async () => {
    for (const bad of [[1, 2], 'text', 42, null]) {
      const res = await putProfile('ada', bad);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
    }
    const big = await putProfile('ada', { blob: 'x'.repeat(70 * 1024) });
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe('payload_too_large');
    expect((await putProfile('u'.repeat(201), { a: 1 })).status).toBe(400);
    // The refused writes changed nothing.
    expect((await stack.api('GET', '/v1/users/ada/profile')).body.profile).toEqual(ADA);
  });

  it('checks metadata.user_id on POST /v1/runs', async () => {
    for (const userId of ['', 7, 'u'.repeat(201)]) {
      const res = await stack.api('POST', '/v1/runs', {
        input: { prompt: 'hi' },
        metadata: { user_id: userId },
      });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body.error.details)).toContain('user_id');
    }
  });

  it("keeps tenants apart: another tenant's profile of the same user id is its own", async () => {
    const other = await otherTenantKey();
    expect((await putProfile('ada', { name: '[profile-other-tenant]' }, other)).status).toBe(200);
    const mine = await stack.api('GET', '/v1/users/ada/profile');
    expect(mine.body.profile).toEqual(ADA);
    const theirs = await stack.api('GET', '/v1/users/ada/profile', undefined, {
      Authorization: `Bearer ${other}`,
    });
    expect(theirs.body.profile).toEqual({ name: '[profile-other-tenant]' });
  });
});

describe('a thread of user ada: profile, title, streamed answer', () => {
  let first: Finished;
  let firstRules: string[];

  beforeAll(async () => {
    expect((await putProfile('bob', { name: 'Bob', interests: ['[profile-bob]'] })).status).toBe(200);
    await clearRequests();
    first = await runToEnd({ input: { prompt: '[titled] hello there' }, metadata: { user_id: 'ada' } });
    firstRules = await rulesUsed();
  }, 90_000);

  it('loads the profile into user_context and shows it to the intake and output calls', async () => {
    expect(first.run.status).toBe('succeeded');
    expect(first.run.metadata).toEqual({ user_id: 'ada' });
    expect(firstRules).toEqual(expect.arrayContaining(['intake-ada', 'output-ada']));
    // Another user's and another tenant's profile never reached the model.
    expect(firstRules).not.toContain('intake-bob');
    expect(firstRules).not.toContain('output-bob');
    expect(firstRules).not.toContain('intake-other-tenant');
    expect(firstRules).not.toContain('output-other-tenant');
    expect(first.run.output.answer).toBe('Hi Ada Lovelace, nice to see you again!');
    const state = await stack.api('GET', `/v1/threads/${first.threadId}/state`);
    expect(state.status).toBe(200);
    expect(state.body.user_context).toEqual({ ...ADA, user_id: 'ada' });
  });

  it('streams token events that concatenate to output.answer, before the output action', () => {
    const tokens = first.events.filter((e) => e.event_type === 'token');
    expect(tokens.length).toBeGreaterThan(1);
    expect(tokens.map((e) => (e.payload as { text: string }).text).join('')).toBe(first.run.output.answer);
    const outputAction = first.events.findIndex(
      (e) => e.event_type === 'action' && (e.payload as { node: string }).node === 'output',
    );
    expect(first.events.map((e) => e.event_type).lastIndexOf('token')).toBeLessThan(outputAction);
  });

  it('names the thread on turn 0 and stores the output in Postgres', async () => {
    expect(firstRules.filter((r) => r.startsWith('title-'))).toEqual(['title-titled']);
    expect(first.run.output).toEqual({
      answer: first.run.output.answer,
      title: 'Greeting Ada',
      structured: null,
    });
    const thread = await stack.api('GET', `/v1/threads/${first.threadId}`);
    expect(thread.body.title).toBe('Greeting Ada');
    const [row] = await stack.sql<{ output: unknown }>('SELECT output FROM runs WHERE id = $1', [
      first.runId,
    ]);
    expect(row.output).toEqual(first.run.output);
    // chat_history keeps the answer.
    const state = await stack.api('GET', `/v1/threads/${first.threadId}/state`);
    expect(state.body.chat_history).toEqual([
      { role: 'user', content: '[titled] hello there' },
      { role: 'assistant', content: first.run.output.answer },
    ]);
  });

  it('turn 1 keeps the title (no title call) and the thread user_context (loaded once per thread)', async () => {
    await clearRequests();
    // Another user id on a later turn does not replace the thread's user context.
    const second = await runToEnd({
      input: { prompt: '[titled] and again' },
      thread_id: first.threadId,
      metadata: { user_id: 'bob' },
    });
    const rules = await rulesUsed();
    expect(second.run.status).toBe('succeeded');
    expect(second.run.turn).toBe(1);
    expect(rules.filter((r) => r.startsWith('title-'))).toEqual([]);
    expect(second.run.output.title).toBe('Greeting Ada');
    expect(rules).toEqual(expect.arrayContaining(['intake-ada', 'output-ada']));
    expect(rules).not.toContain('intake-bob');
    const state = await stack.api('GET', `/v1/threads/${first.threadId}/state`);
    expect(state.body.user_context).toEqual({ ...ADA, user_id: 'ada' });
    expect(state.body.chat_history).toHaveLength(4);
    expect((await stack.api('GET', `/v1/threads/${first.threadId}`)).body.title).toBe('Greeting Ada');
  }, 90_000);

  it("uses bob's own profile on bob's thread, and no profile without a user id", async () => {
    await clearRequests();
    const bob = await runToEnd({ input: { prompt: 'hello' }, metadata: { user_id: 'bob' } });
    expect(bob.run.output.answer).toBe('Hi Bob!');
    expect(await rulesUsed()).toEqual(expect.arrayContaining(['intake-bob', 'output-bob']));

    await clearRequests();
    const anonymous = await runToEnd({ input: { prompt: 'hello' } });
    const rules = await rulesUsed();
    expect(rules).toEqual(expect.arrayContaining(['intake', 'output', 'title-default']));
    expect(anonymous.run.output.title).toBe('Conversation');
    const state = await stack.api('GET', `/v1/threads/${anonymous.threadId}/state`);
    expect(state.body.user_context).toEqual({});
  }, 90_000);
});

describe('output tools', () => {
  it('output_structured fills the output structure intake set, shown in output.structured', async () => {
    const agent = await stack.api('POST', '/v1/agents', {
      name: 'structured',
      output_tools: ['output', 'output_structured'],
    });
    expect(agent.status).toBe(201);
    await clearRequests();
    const done = await runToEnd({
      input: { prompt: '[structured] tell me about France' },
      agent_id: agent.body.id,
    });
    expect(done.run.status).toBe('succeeded');
    const rules = await rulesUsed();
    expect(rules).toEqual(
      expect.arrayContaining(['intake-structured', 'planner-final-both', 'output-structured', 'output']),
    );
    // The server (strict: JSON only for a native ask) got the structured calls natively; the
    // free-form `content` has no strict JSON Schema form, which changes nothing about how it is asked.
    const log = (await (await fetch(`${stack.llmUrl}/_requests`)).json()) as {
      rule: string | null;
      native_json: string | null;
      system: string;
    }[];
    for (const rule of ['intake-structured', 'output-structured']) {
      const r = log.find((x) => x.rule === rule);
      expect(r).toMatchObject({ native_json: 'json_schema' });
      expect(r?.system).not.toMatch(/json/i);
    }
    const filled = [
      { id: 'capital', expected: 'the capital of France', content: 'Paris', type: 'text' },
      { id: 'population', expected: 'population in millions', content: 2.1, type: 'number' },
    ];
    expect(done.run.output).toEqual({
      answer: 'Here is the answer.',
      title: 'Conversation',
      structured: filled,
    });
    const state = await stack.api('GET', `/v1/threads/${done.threadId}/state`);
    expect(state.body.output_structure).toEqual(filled);
    const actions = (await stack.api('GET', `/v1/runs/${done.runId}/actions`)).body.actions as Action[];
    const lastPlanner = actions.filter((a) => a.node === 'planner').pop();
    expect((lastPlanner?.result as PlannerResult).output_tools).toEqual(['output', 'output_structured']);
    // The title call is counted in the output action's usage, with the answer and the structured call.
    const output = actions.find((a) => a.node === 'output');
    expect(output?.usage).toEqual({
      prompt_tokens: 25 + 18 + 10,
      completion_tokens: 5 + 9 + 1,
      total_tokens: 68,
    });
  }, 90_000);

  it('an agent allowing only `output` never runs output_structured', async () => {
    const agent = await stack.api('POST', '/v1/agents', { name: 'plain', output_tools: ['output'] });
    await clearRequests();
    const done = await runToEnd({
      input: { prompt: '[structured] tell me about France' },
      agent_id: agent.body.id,
    });
    expect(done.run.output.structured).toBeNull();
    expect(done.run.output.answer).toBe('Here is the answer.');
    expect(await rulesUsed()).not.toContain('output-structured');
  }, 90_000);

  it('context entries marked for output reach the output prompt; analysis-only entries do not', async () => {
    await clearRequests();
    const done = await runToEnd({ input: { prompt: '[ctx] what is 6*7' } });
    expect(done.run.status).toBe('succeeded');
    const actions = (await stack.api('GET', `/v1/runs/${done.runId}/actions`)).body.actions as Action[];
    const entries = actions.flatMap((a) => a.context ?? []);
    expect(entries.some((c) => c.usage_type === 'output')).toBe(true);
    const rules = await rulesUsed();
    expect(rules).toContain('output-ctx');
    expect(rules).not.toContain('output-analysis-leak');
    expect(done.run.output.answer).toBe('Context seen: 42.');
  }, 90_000);
});
