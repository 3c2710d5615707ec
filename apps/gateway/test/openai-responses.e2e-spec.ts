import OpenAI from 'openai';
import type {
  FunctionTool,
  ResponseFunctionToolCall,
  ResponseStreamEvent,
} from 'openai/resources/responses/responses';
import { TestStack } from '@switchyard/testing';
import { refusal } from './openai-refusal';

// OpenAI's Responses API through the official `openai` client's `responses` methods against the
// real gateway: instructions and previous_response_id reaching the model, client function tools
// (streamed, continued with function_call_output), a question answered by the next message,
// text.format json_schema parsed by the client, background responses polled and cancelled, the
// stored response and its input items, and errors in OpenAI's shape. Real services; the scripted
// model server (fixtures/openai-responses.script.json) answers a rule only when its marker
// reached the model.

let stack: TestStack;
let client: OpenAI;

beforeAll(async () => {
  stack = await TestStack.start({ script: 'apps/gateway/test/fixtures/openai-responses.script.json' });
  client = new OpenAI({ apiKey: stack.key, baseURL: `${stack.gatewayUrl}/v1`, maxRetries: 0 });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

const WEATHER: FunctionTool = {
  type: 'function',
  name: 'get_weather',
  description: 'The current weather in a city',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  },
  strict: true,
};

async function runOf(
  id: string,
): Promise<{ status: string; thread_id: string; metadata: Record<string, unknown> }> {
  return (await stack.api('GET', `/v1/runs/${id}`)).body as never;
}

describe('responses', () => {
  it('answers with instructions; previous_response_id continues the thread; stored and listed', async () => {
    await stack.clearModelRequests();
    const first = await client.responses
      .create({
        model: 'default',
        instructions: 'Talk like a pirate [pirate-mode].',
        input: '[greet] hello there',
        metadata: { ticket: 'T-1' },
      })
      .withResponse();
    const answer = first.data;
    expect(answer.id).toMatch(/^resp_[0-9a-f]{32}$/);
    expect(answer.object).toBe('response');
    expect(answer.status).toBe('completed');
    expect(answer.output_text).toBe('Ahoy, matey!');
    expect(answer.instructions).toBe('Talk like a pirate [pirate-mode].');
    expect(answer.metadata).toEqual({ ticket: 'T-1' });
    expect(answer.usage?.total_tokens).toBeGreaterThan(0);
    expect((await stack.modelRulesUsed()).includes('output-instructions')).toBe(true);
    const runId = first.response.headers.get('x-run-id') ?? '';
    const run = await runOf(runId);
    expect(run.status).toBe('succeeded');
    expect(run.metadata['source']).toBe('responses');

    // Read back as stored, with its input.
    const again = await client.responses.retrieve(answer.id);
    expect(again.output_text).toBe('Ahoy, matey!');
    expect(again.status).toBe('completed');
    const items = [];
    for await (const item of client.responses.inputItems.list(answer.id)) {
      items.push(item);
    }
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text: '[greet] hello there' }],
    });

    // The next turn: a code told in one response is known in the next.
    const told = await client.responses.create({
      model: 'default',
      input: 'remember [code:4711]',
      previous_response_id: answer.id,
    });
    const recalled = await client.responses
      .create({ model: 'default', input: '[recall] what is my code?', previous_response_id: told.id })
      .withResponse();
    expect(recalled.data.output_text).toBe('Your code is 4711.');
    expect(recalled.data.previous_response_id).toBe(told.id);
    expect((await runOf(recalled.response.headers.get('x-run-id') ?? '')).thread_id).toBe(run.thread_id);

    // Deleted: no longer found, and no longer continued.
    await client.responses.delete(told.id);
    expect((await refusal(client.responses.retrieve(told.id))).status).toBe(404);
    const gone = await refusal(
      client.responses.create({ model: 'default', input: 'hi', previous_response_id: told.id }),
    );
    expect(gone.status).toBe(404);
    expect(gone.code).toBe('previous_response_not_found');
    expect(gone.param).toBe('previous_response_id');
  }, 120_000);

  it('streams a function call, then the answer after its function_call_output', async () => {
    await stack.clearModelRequests();
    const stream = client.responses.stream({
      model: 'default',
      input: '[weather] what is the weather in Paris?',
      tools: [WEATHER],
    });
    const types: string[] = [];
    stream.on('event', (e: ResponseStreamEvent) => types.push(e.type));
    const paused = await stream.finalResponse();
    expect(paused.status).toBe('completed');
    const calls = (paused.output as OpenAI.Responses.ResponseOutputItem[]).filter(
      (o): o is ResponseFunctionToolCall => o.type === 'function_call',
    );
    expect(calls).toHaveLength(1);
    expect(calls[0].name).toBe('get_weather');
    expect(JSON.parse(calls[0].arguments)).toEqual({ city: 'Paris' });
    expect(types[0]).toBe('response.created');
    expect(types).toContain('response.function_call_arguments.done');
    expect(types[types.length - 1]).toBe('response.completed');
    expect((await stack.modelRulesUsed()).includes('planner-weather')).toBe(true);

    // A user message cannot go on from a response that waits for its function's result.
    const early = await refusal(
      client.responses.create({ model: 'default', input: 'never mind', previous_response_id: paused.id }),
    );
    expect(early.status).toBe(400);
    expect(early.message).toContain(calls[0].call_id);

    const resumed = await client.responses.create({
      model: 'default',
      previous_response_id: paused.id,
      input: [{ type: 'function_call_output', call_id: calls[0].call_id, output: 'sunny, 21 C' }],
      stream: true,
    });
    let text = '';
    let deltas = 0;
    let done: OpenAI.Responses.Response | undefined;
    for await (const event of resumed) {
      if (event.type === 'response.output_text.delta') {
        text += event.delta;
        deltas++;
      }
      if (event.type === 'response.completed') {
        done = event.response;
      }
    }
    expect(text).toBe('The weather: sunny, 21 C.');
    expect(deltas).toBeGreaterThan(1);
    expect(done?.output[0]).toMatchObject({ type: 'message', content: [{ type: 'output_text', text }] });
    expect(done?.previous_response_id).toBe(paused.id);

    // The result was applied once.
    const twice = await refusal(
      client.responses.create({
        model: 'default',
        input: [{ type: 'function_call_output', call_id: calls[0].call_id, output: 'again' }],
      }),
    );
    expect(twice.status).toBe(400);
    expect(twice.code).toBe('tool_call_not_found');
  }, 120_000);

  it('a question of the agent is the answer; the next message answers it and the run goes on', async () => {
    const asked = await client.responses.create({ model: 'default', input: '[ask] greet me' });
    expect(asked.output_text).toBe('What is your name?');
    const runId = (asked as unknown as { run_id: string }).run_id;
    expect((await runOf(runId)).status).toBe('waiting');
    const badly = await refusal(
      client.responses.create({ model: 'default', input: 'Ada', previous_response_id: asked.id }),
    );
    expect(badly.status).toBe(400);
    expect(badly.message).toContain('JSON');
    const answered = await client.responses.create({
      model: 'default',
      input: '{"name": "Ada"}',
      previous_response_id: asked.id,
    });
    expect(answered.output_text).toBe('Hello Ada!');
    expect((answered as unknown as { run_id: string }).run_id).toBe(runId);
    expect((await runOf(runId)).status).toBe('succeeded');
  }, 120_000);

  it('text.format json_schema: the client parses the answer', async () => {
    const parsed = await client.responses.parse({
      model: 'default',
      input: '[json] the weather in Paris as data',
      text: {
        format: {
          type: 'json_schema',
          name: 'weather',
          strict: true,
          schema: {
            type: 'object',
            properties: {
              city: { type: 'string' },
              temperature_c: { type: 'number' },
              conditions: { type: 'string' },
            },
            required: ['city', 'temperature_c', 'conditions'],
            additionalProperties: false,
          },
        },
      },
    });
    expect(parsed.output_parsed).toEqual({ city: 'Paris', temperature_c: 21, conditions: 'sunny' });
  }, 120_000);

  it('background: answers at once, is polled to its answer, and a slow one is cancelled', async () => {
    const queued = await client.responses.create({
      model: 'default',
      input: 'a quick one',
      background: true,
    });
    expect(['queued', 'in_progress']).toContain(queued.status);
    expect(queued.background).toBe(true);
    let polled = queued;
    for (let i = 0; i < 100 && (polled.status === 'queued' || polled.status === 'in_progress'); i++) {
      await new Promise((r) => setTimeout(r, 200));
      polled = await client.responses.retrieve(queued.id);
    }
    expect(polled.status).toBe('completed');
    expect(polled.output_text).toBe('one two three four five six seven eight');

    const slow = await client.responses.create({
      model: 'default',
      input: '[slow] take your time',
      background: true,
    });
    const runId = (slow as unknown as { run_id: string }).run_id;
    // Cancelled while the answer streams (the planner has decided; the output node writes for 20 s).
    for (let i = 0; i < 100; i++) {
      const events = await stack.api('GET', `/v1/runs/${runId}/actions`);
      if ((events.body.actions as { node: string }[]).some((a) => a.node === 'planner')) {
        break;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    const cancelled = await client.responses.cancel(slow.id);
    expect(cancelled.status).toBe('cancelled');
    expect((await runOf(runId)).status).toBe('cancelled');
    expect((await client.responses.retrieve(slow.id)).status).toBe('cancelled');
    // Only an unfinished response is cancelled.
    const finished = await refusal(client.responses.cancel(queued.id));
    expect(finished.status).toBe(400);
  }, 120_000);
});

describe('a graph agent', () => {
  it('answers a response and continues its thread with previous_response_id', async () => {
    const created = await stack.api('POST', '/v1/agents', {
      name: 'echo-graph',
      kind: 'graph',
      dsl: {
        components: {
          begin: { obj: { component_name: 'Begin', params: {} }, downstream: ['Message:Echo'], upstream: [] },
          'Message:Echo': {
            obj: { component_name: 'Message', params: { content: ['echo: {sys.query}'] } },
            downstream: [],
            upstream: ['begin'],
          },
        },
      },
    });
    expect(created.status).toBe(201);
    const first = await client.responses.create({ model: 'echo-graph', input: 'hello graph' });
    expect(first.status).toBe('completed');
    // RAGFlow's Message eats the blank before a reference.
    expect(first.output_text).toBe('echo:hello graph');
    const stream = client.responses.stream({
      model: 'echo-graph',
      input: 'again',
      previous_response_id: first.id,
    });
    const second = await stream.finalResponse();
    expect(second.output_text).toBe('echo:again');
    const [a, b] = await Promise.all(
      [first, second].map((r) => runOf((r as unknown as { run_id: string }).run_id)),
    );
    expect(b.thread_id).toBe(a.thread_id);
    expect(b.status).toBe('succeeded');
  }, 120_000);
});

describe('errors in OpenAI shape', () => {
  it.each<[string, Record<string, unknown>, string]>([
    ['a sampling setting', { temperature: 0.2 }, 'temperature'],
    ['store: false', { store: false }, 'store'],
    ['an unknown field', { frobnicate: true }, 'frobnicate'],
    ['a tool type other than function', { tools: [{ type: 'web_search' }] }, 'tools[0].type'],
    ['an assistant message last', { input: [{ role: 'assistant', content: 'hi' }] }, 'input[0]'],
    ['background and stream', { background: true, stream: true }, 'stream'],
  ])('%s is a 400 naming the field', async (_what, extra, param) => {
    const err = await refusal(
      client.responses.create({ model: 'default', input: 'hello', ...extra } as never),
    );
    expect(err.status).toBe(400);
    expect(err.param).toBe(param);
  });

  it('an unknown model and an unknown response are 404s', async () => {
    const model = await refusal(client.responses.create({ model: 'nope', input: 'hi' }));
    expect(model.status).toBe(404);
    expect(model.code).toBe('model_not_found');
    const missing = await refusal(client.responses.retrieve('resp_00000000000000000000000000000000'));
    expect(missing.status).toBe(404);
    expect(missing.code).toBe('response_not_found');
  });
});
