import { TestStack } from '@switchyard/testing';

// What the planner knows besides the prompt, end to end: the user's profile, memory recalled from
// the user's earlier turns, the turn's files, the tenant's knowledge collections (the retrieval
// tool is offered) and the thread's earlier messages reach every planner call — the planning call
// and the tool-calling call — as sent to the model server.

const FIRST = 'My ship is called Nautilus.';
const SECOND = 'What is my ship called?';
let stack: TestStack;

beforeAll(async () => {
  stack = await TestStack.start({
    script: 'apps/planner/test/fixtures/context.script.json',
    env: { SWITCHYARD_PLANNER_HISTORY_TOKENS: '4000' },
  });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

interface LlmRecord {
  rule: string | null;
  system: string;
  messages_count: number;
}

async function requests(): Promise<LlmRecord[]> {
  return (await (await fetch(`${stack.llmUrl}/_requests`)).json()) as LlmRecord[];
}

async function turn(body: Record<string, unknown>): Promise<{ thread_id: string; records: LlmRecord[] }> {
  await fetch(`${stack.llmUrl}/_requests`, { method: 'DELETE' });
  const res = await stack.api('POST', '/v1/runs', body);
  expect(res.status).toBe(202);
  const run = await stack.ended(res.body.run_id as string);
  expect(run.status).toBe('succeeded');
  return { thread_id: res.body.thread_id as string, records: await requests() };
}

describe("the planner's context", () => {
  let first: LlmRecord[];
  let second: LlmRecord[];

  beforeAll(async () => {
    const profile = await stack.api('PUT', '/v1/users/ada/profile', {
      name: 'Ada Lovelace',
      occupation: 'mathematician',
    });
    expect(profile.status).toBe(200);
    const collection = await stack.api('POST', '/v1/collections', {
      name: 'Engine handbook',
      index_sets: [{ index_name: 'main', model: 'hash-embedding-v1' }],
    });
    expect(collection.status).toBe(201);
    const one = await turn({ input: { prompt: FIRST }, metadata: { user_id: 'ada' } });
    first = one.records;
    second = (
      await turn({
        thread_id: one.thread_id,
        input: {
          prompt: SECOND,
          files: [{ name: 'fleet.csv', type: 'text/csv', mapping: { provider: 'local', path: 'fleet.csv' } }],
        },
        metadata: { user_id: 'ada' },
      })
    ).records;
  }, 120_000);

  const plannerCalls = (records: LlmRecord[]) =>
    records.filter((r) => r.rule === 'plan-default' || r.rule === 'planner-answers');

  it('gives the planning call and the tool-calling call the same background', () => {
    const calls = plannerCalls(second);
    expect(calls.map((c) => c.rule)).toEqual(['plan-default', 'planner-answers']);
    for (const call of calls) {
      // The profile, in the prompt paragraph every node shares.
      expect(call.system).toContain('About the user (from their profile):');
      expect(call.system).toContain('- Name: Ada Lovelace');
      expect(call.system).toContain('- Occupation: mathematician');
      // The first turn, recalled as the user's memory.
      expect(call.system).toContain(`[recalled] User: ${FIRST} Assistant: Noted.`);
      // The turn's file, and what preprocessing made of it (a file that is not there: an error).
      expect(call.system).toContain('Files of this turn:\n- fleet.csv (text/csv) at fleet.csv');
      expect(call.system).toMatch(/- other file fleet\.csv: error /);
      // The tenant's collection, with the id the retrieval tool takes.
      expect(call.system).toMatch(/- Engine handbook \(id [0-9a-f-]{36}, 0 document\(s\)\)/);
    }
  });

  it("sends the thread's earlier messages before the prompt", () => {
    // Turn 1: system + prompt. Turn 2: system + the first prompt + its answer + the prompt.
    expect(plannerCalls(first).map((c) => c.messages_count)).toEqual([2, 2]);
    expect(plannerCalls(second).map((c) => c.messages_count)).toEqual([4, 4]);
  });

  it('tells the first turn nothing it does not have', () => {
    for (const call of plannerCalls(first)) {
      expect(call.system).toContain('- Name: Ada Lovelace');
      expect(call.system).not.toContain('[recalled]');
      expect(call.system).not.toContain('Files of this turn');
      expect(call.system).not.toContain('earlier message(s)');
    }
  });
});
