import OpenAI from 'openai';
import { type RunEvent, componentIdOfNode } from '@switchyard/contracts';
import { TestStack, readSse, waitFor } from '@switchyard/testing';
import {
  type GoldenEvent,
  dsl,
  golden as goldenOf,
  ragflowEventsOf as ragflowEventsAs,
  reduceRagflow,
  canvas,
  putScript,
  scriptGoldenReplies,
  expectGoldenPrompts,
  runGoldenTurns,
} from './graph-fixtures';

// Graph agents end to end: RAGFlow canvases saved through the gateway, run by the orchestrator
// routing on `next` only, their components served by the planner's `graph.*` handler, the LLM
// being the scripted model server. Each scenario is checked against RAGFlow's own run of it
// (libs/graph/fixtures/expected): the answer, the components' path and the prompts sent.

interface Golden {
  inputs: {
    turns: { query: string; inputs?: Record<string, unknown>; resume?: Record<string, unknown> }[];
    scripted_llm: { reply: string }[];
  };
  answer: string;
  path: string[];
  llm: { messages: { role: string; content: string }[] }[];
  events: GoldenEvent[];
}

const golden = (name: string): Golden => goldenOf<Golden>(name);
const ragflowEventsOf = (runId: string) => ragflowEventsAs(stack, runId, stack.key);
const scriptReplies = (g: Golden) => scriptGoldenReplies(stack, g);
const expectPromptsOf = (g: Golden) => expectGoldenPrompts(stack, g);

let stack: TestStack;

beforeAll(async () => {
  stack = await TestStack.start({ script: 'apps/planner/test/fixtures/graph.script.json' });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

async function createAgent(name: string, file: string): Promise<string> {
  const res = await stack.api('POST', '/v1/agents', { name, kind: 'graph', dsl: dsl(file) });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function run(agentId: string, prompt: string, inputs?: Record<string, unknown>, threadId?: string) {
  const res = await stack.api('POST', '/v1/runs', {
    agent_id: agentId,
    input: { prompt, ...(inputs ? { inputs } : {}) },
    ...(threadId ? { thread_id: threadId } : {}),
  });
  expect(res.status).toBe(202);
  const runId = res.body.run_id as string;
  const read = await readSse(`${stack.gatewayUrl}/v1/runs/${runId}/events`, {
    headers: { Authorization: `Bearer ${stack.key}` },
    timeoutMs: 60_000,
  });
  const events = read.frames.map((f) => JSON.parse(f.data) as RunEvent);
  const runRow = (await stack.api('GET', `/v1/runs/${runId}`)).body;
  const actions = (await stack.api('GET', `/v1/runs/${runId}/actions`)).body.actions as { node: string }[];
  return {
    run: runRow,
    events,
    path: actions.map((a) => componentIdOfNode(a.node)).filter((id): id is string => id !== undefined),
    tokens: events
      .filter((e) => e.event_type === 'token')
      .map((e) => (e.payload as { text: string }).text)
      .join(''),
  };
}

describe('graph agents: RAGFlow canvases on the orchestrator', () => {
  let switchAgent: string;
  let categorizeAgent: string;

  beforeAll(async () => {
    switchAgent = await createAgent('switch', 'switch.json');
    categorizeAgent = await createAgent('questions', 'questions_category.json');
  });

  it.each(['shanghai', 'beijing', 'shenzhen', 'other'])(
    'switch.%s: the Switch routes on sys.query to the Message RAGFlow ran',
    async (scenario) => {
      const g = golden(`switch.${scenario}`);
      const r = await run(switchAgent, g.inputs.turns[0].query);
      expect(r.run.status).toBe('succeeded');
      expect(r.run.output.answer).toBe(g.answer);
      expect(r.path).toEqual(g.path);
      // The Message streams its text as token events.
      expect(r.tokens).toBe(g.answer);
      // A RAGFlow client following the run sees what RAGFlow's own stream said.
      expect(reduceRagflow(await ragflowEventsOf(r.run.run_id as string))).toEqual(reduceRagflow(g.events));
    },
  );

  it.each(['casual', 'complain', 'fallback', 'tie'])(
    'questions_category.%s: Categorize asks the model as RAGFlow did and routes on its answer',
    async (scenario) => {
      const g = golden(`questions_category.${scenario}`);
      await scriptReplies(g);
      const r = await run(categorizeAgent, g.inputs.turns[0].query);
      expect(r.run.error).toBeNull();
      expect(r.run.output.answer).toBe(g.answer);
      expect(r.path).toEqual(g.path);
      await expectPromptsOf(g);
      // Metered like every LLM call: the action's usage is the call's.
      expect(r.run.usage.total_tokens).toBeGreaterThan(0);
    },
  );

  it('agent_msg.default: a tool-less Agent renders {sys.query} into its prompt; the Message shows its reply', async () => {
    const agent = await createAgent('agent-msg', 'agent_msg.json');
    const g = golden('agent_msg.default');
    await scriptReplies(g);
    const r = await run(agent, g.inputs.turns[0].query);
    expect(r.run.error).toBeNull();
    expect(r.run.output.answer).toBe(g.answer);
    expect(r.path).toEqual(g.path);
    expect(r.tokens).toBe(g.answer);
    await expectPromptsOf(g);
    // The Agent streams into the Message: RAGFlow finishes it after the Message's end.
    expect(reduceRagflow(await ragflowEventsOf(r.run.run_id as string))).toEqual(reduceRagflow(g.events));
  });

  it('an LLM with outputs.structured answers JSON, asked natively and with RAGFlow\u2019s instruction; an unparseable reply is asked again', async () => {
    const schema = {
      type: 'object',
      properties: { name: { type: 'string' }, age: { type: 'number' } },
      required: ['name', 'age'],
    };
    const res = await stack.api('POST', '/v1/agents', {
      name: 'structured-llm',
      kind: 'graph',
      dsl: canvas({
        'LLM:Extract': {
          name: 'LLM',
          params: {
            llm_id: 'm',
            sys_prompt: 'Extract the person.',
            prompts: [{ role: 'user', content: '{sys.query}' }],
            max_retries: 1,
            outputs: { content: { type: 'string' }, structured: schema },
          },
          downstream: ['Message:Show'],
        },
        'Message:Show': { name: 'Message', params: { content: ['{LLM:Extract@structured}'] } },
      }),
    });
    expect(res.status).toBe(201);
    await putScript(stack, {
      strict: true,
      models: ['scripted'],
      rules: [
        // The first reply is not JSON (a model may still get it wrong): the error goes back and it answers again.
        {
          name: 'prose',
          times: 1,
          when: { system_includes: 'Here is the JSON schema:' },
          reply: { content: 'Ada, 36' },
        },
        {
          name: 'json',
          when: { system_includes: 'Here is the JSON schema:', any_includes: 'was invalid' },
          reply: { content: '{"name": "Ada", "age": 36}' },
        },
      ],
    });
    const r = await run(res.body.id as string, 'Ada Lovelace is 36.');
    expect(r.run.error).toBeNull();
    expect(r.run.output.answer).toBe('{"name": "Ada", "age": 36}');
    const calls = (await (await fetch(`${stack.llmUrl}/_requests`)).json()) as {
      rule: string;
      native_json: string | null;
      native_schema: unknown;
      system: string;
    }[];
    expect(calls.map((c) => c.rule)).toEqual(['prose', 'json']);
    expect(calls[0].system).toContain('Extract the person.You’re a helpful AI assistant.');
    expect(calls[0].native_json).not.toBeNull();
    expect(calls[0].native_schema).toMatchObject({ properties: schema.properties });
  });

  it("a later turn's Agent sees the conversation so far (RAGFlow's history window), and sys.history records it", async () => {
    const agent = await createAgent('agent-msg-history', 'agent_msg.json');
    const system = golden('agent_msg.default').llm[0].messages[0].content;
    await putScript(stack, {
      strict: true,
      models: ['scripted'],
      rules: [
        {
          name: 'second',
          when: { system_includes: system, any_includes: 'first answer' },
          reply: { content: 'second answer' },
        },
        { name: 'first', when: { system_includes: system }, reply: { content: 'first answer' } },
      ],
    });
    const first = await run(agent, 'first question');
    expect(first.run.output.answer).toBe('first answer');
    const second = await run(agent, 'second question', undefined, first.run.thread_id as string);
    expect(second.run.output.answer).toBe('second answer');
    const calls = (await (await fetch(`${stack.llmUrl}/_requests`)).json()) as {
      rule: string;
      messages_count: number;
    }[];
    // system + the prompt; then system + the first exchange + the prompt.
    expect(calls.map((c) => [c.rule, c.messages_count])).toEqual([
      ['first', 2],
      ['second', 4],
    ]);
    const state = (await stack.api('GET', `/v1/threads/${first.run.thread_id}/state`)).body;
    expect(state.graph.globals['sys.history']).toEqual([
      'user: first question',
      expect.stringMatching(/^assistant: \{'content': 'first answer'/),
      'user: second question',
    ]);
  });

  it.each(['negative_transport', 'negative_exact_label', 'positive'])(
    'customer_feedback_dispatcher.%s: Begin form inputs, two Categorize on a whole-param ref, VariableAggregator',
    async (scenario) => {
      const agent = await createAgent(`feedback-${scenario}`, 'customer_feedback_dispatcher.json');
      const g = golden(`customer_feedback_dispatcher.${scenario}`);
      await scriptReplies(g);
      // A task-mode canvas reads its form, not the query; Switchyard's prompt is never empty.
      const r = await run(agent, 'review', g.inputs.turns[0].inputs);
      expect(r.run.error).toBeNull();
      expect(r.run.output.answer).toBe(g.answer);
      expect(r.path).toEqual(g.path);
      await expectPromptsOf(g);
    },
  );

  it('runs through the OpenAI-compatible endpoint with the official client: model = the agent, streamed Messages', async () => {
    const client = new OpenAI({ apiKey: stack.key, baseURL: `${stack.gatewayUrl}/v1`, maxRetries: 0 });
    const g = golden('switch.beijing');
    const reply = await client.chat.completions.create({
      model: 'switch',
      messages: [{ role: 'user', content: g.inputs.turns[0].query }],
    });
    expect(reply.choices[0].message.content).toBe(g.answer);
    expect(reply.choices[0].finish_reason).toBe('stop');
    const stream = await client.chat.completions.create({
      model: 'switch',
      messages: [{ role: 'user', content: golden('switch.shenzhen').inputs.turns[0].query }],
      stream: true,
    });
    const pieces: string[] = [];
    for await (const part of stream) {
      pieces.push(part.choices[0]?.delta?.content ?? '');
    }
    expect(pieces.join('')).toBe(golden('switch.shenzhen').answer);
    // The Message's own tokens, not one piece sent at the end.
    expect(pieces.filter(Boolean).length).toBeGreaterThan(1);
  });

  it('refuses a malformed DSL with a 400 naming the component and field, and stores nothing', async () => {
    const before = (await stack.api('GET', '/v1/agents')).body.agents.length as number;
    const broken = dsl('switch.json') as {
      graph: { nodes: { id: string; data: { form: { content?: string[] } } }[] };
    };
    broken.graph.nodes.find((n) => n.id === 'Message:HappyLandsFly')!.data.form.content = [];
    const res = await stack.api('POST', '/v1/agents', { name: 'broken', kind: 'graph', dsl: broken });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toContainEqual(
      expect.objectContaining({
        component: 'Message:HappyLandsFly',
        field: 'dsl.components.Message:HappyLandsFly.content',
      }),
    );
    expect((await stack.api('GET', '/v1/agents')).body.agents).toHaveLength(before);
  });

  it('pins the version a run starts with: a draft edit does not change a run of the published canvas', async () => {
    const edited = dsl('switch.json') as {
      graph: { nodes: { id: string; data: { form: { content?: string[] } } }[] };
    };
    edited.graph.nodes.find((n) => n.id === 'Message:HappyLandsFly')!.data.form.content = [
      '{sys.query} edited',
    ];
    expect((await stack.api('PATCH', `/v1/agents/${switchAgent}`, { dsl: edited })).status).toBe(200);
    expect((await run(switchAgent, '上海')).run.output.answer).toBe('上海shanghai');
    expect((await stack.api('POST', `/v1/agents/${switchAgent}/versions`)).status).toBe(201);
    expect((await run(switchAgent, '上海')).run.output.answer).toBe('上海edited');
  });

  describe('all.json (the dangling CodeExec:FunnyBroomsShare removed, as the golden did): UserFillUp pauses and resumes', () => {
    let allAgent: string;
    let loopAgent: string;

    beforeAll(async () => {
      const patched = dsl('all.json') as {
        components: Record<string, { obj: { params: { conditions?: { to: string[] }[] } } }>;
      };
      for (const cond of patched.components['Switch:Route'].obj.params.conditions ?? []) {
        cond.to = cond.to.filter((id) => id !== 'CodeExec:FunnyBroomsShare');
      }
      const res = await stack.api('POST', '/v1/agents', { name: 'all', kind: 'graph', dsl: patched });
      expect(res.status).toBe(201);
      allAgent = res.body.id as string;
      // The golden's patch: the Loop's incomplete loop_variables entry removed.
      const loop = patched.components['Loop:InputUntil1'].obj.params as Record<string, unknown>;
      loop['loop_variables'] = [];
      const withVars = await stack.api('POST', '/v1/agents', {
        name: 'all-loop',
        kind: 'graph',
        dsl: patched,
      });
      expect(withVars.status).toBe(201);
      loopAgent = withVars.body.id as string;
    });

    const statusOf = async (runId: string) => (await stack.api('GET', `/v1/runs/${runId}`)).body;

    it.each([
      'message',
      'var_assigner',
      'var_aggregator',
      'text',
      'condition',
      'condition_else',
      'wait_input',
      'else',
      'iteration',
      'loop_with_complete_vars',
      'categorize',
    ])('all.%s: the answer and path RAGFlow gave over its turns', async (scenario) => {
      const g = golden(`all.${scenario}`);
      await scriptReplies(g);
      const runId = await runGoldenTurns(
        stack,
        scenario === 'loop_with_complete_vars' ? loopAgent : allAgent,
        g,
      );
      await waitFor('the run to end', async () =>
        ['succeeded', 'failed', 'cancelled'].includes((await statusOf(runId)).status),
      );
      const run = await statusOf(runId);
      expect(run.error).toBeNull();
      expect(run.output.answer).toBe(g.answer);
      const actions = (await stack.api('GET', `/v1/runs/${runId}/actions`)).body.actions as {
        node: string;
        result: { paused?: boolean };
      }[];
      // A paused UserFillUp asked and was run again with the answer: RAGFlow counts it once.
      const path = actions
        .filter((a) => !a.result?.paused)
        .map((a) => componentIdOfNode(a.node))
        .filter((id): id is string => id !== undefined);
      expect(path).toEqual(g.path);
      expect(reduceRagflow(await ragflowEventsOf(runId))).toEqual(reduceRagflow(g.events));
    });

    it('a graph run waiting at a UserFillUp is cancelled like any run', async () => {
      const res = await stack.api('POST', '/v1/runs', { agent_id: allAgent, input: { prompt: 'hi' } });
      const runId = res.body.run_id as string;
      await waitFor('the run to wait for the form', async () => (await statusOf(runId)).status === 'waiting');
      expect((await stack.api('POST', `/v1/runs/${runId}/cancel`)).status).toBeLessThan(300);
      await waitFor('the run to be cancelled', async () => (await statusOf(runId)).status === 'cancelled');
      expect(
        (await stack.api('POST', `/v1/runs/${runId}/resume`, { input: { demo: 'message' } })).status,
      ).toBe(409);
    });

    it("all.loop: the Loop's incomplete loop_variables entry fails the run naming the component, as RAGFlow", async () => {
      const g = golden('all.loop') as Golden & { error: { message: string; components: string[] } };
      const res = await stack.api('POST', '/v1/runs', { agent_id: allAgent, input: { prompt: 'hi' } });
      const runId = res.body.run_id as string;
      await waitFor('the run to wait for the form', async () => (await statusOf(runId)).status === 'waiting');
      expect(
        (await stack.api('POST', `/v1/runs/${runId}/resume`, { input: g.inputs.turns[1].resume })).status,
      ).toBe(202);
      await waitFor('the run to end', async () =>
        ['succeeded', 'failed'].includes((await statusOf(runId)).status),
      );
      const run = await statusOf(runId);
      expect(run.status).toBe('failed');
      expect(run.error.code).toBe('component_failed');
      expect(run.error.message).toBe(`component ${g.error.components[0]}: ${g.error.message}`);
      expect(run.output.answer).toBe(g.answer);
    });

    it('a paused graph run survives a restart of the service running its components', async () => {
      const res = await stack.api('POST', '/v1/runs', { agent_id: allAgent, input: { prompt: 'hi' } });
      const runId = res.body.run_id as string;
      await waitFor('the run to wait for the form', async () => (await statusOf(runId)).status === 'waiting');
      // Nothing of the canvas lives in the process: the run pinned it, the thread holds its state.
      await stack.restart('planner');
      expect(
        (await stack.api('POST', `/v1/runs/${runId}/resume`, { input: { demo: 'var_assigner' } })).status,
      ).toBe(202);
      await waitFor('the run to end', async () =>
        ['succeeded', 'failed'].includes((await statusOf(runId)).status),
      );
      const run = await statusOf(runId);
      expect(run.error).toBeNull();
      expect(run.output.answer).toBe(golden('all.var_assigner').answer);
    });
  });
});
