import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { TestStack, readSse } from '@switchyard/testing';
import { refusal } from './openai-refusal';

// The OpenAI-compatible surface through the official `openai` client against the real gateway:
// models, completions (plain and streamed), client tools that pause the run until the client
// sends their results, response_format, and errors in OpenAI's shape. Real services, the
// scripted model server (fixtures/openai-client.script.json): a rule answers only when its
// marker is in the prompt and, for the client tools, only when the planner was offered them.

let stack: TestStack;
let client: OpenAI;

beforeAll(async () => {
  stack = await TestStack.start({ script: 'apps/gateway/test/fixtures/openai-client.script.json' });
  client = new OpenAI({ apiKey: stack.key, baseURL: `${stack.gatewayUrl}/v1`, maxRetries: 0 });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

const WEATHER: ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'The current weather in a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    },
  },
};
const TIME: ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_time',
    description: 'The time in a time zone',
    parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] },
  },
};
const WEATHER_SCHEMA = {
  type: 'object',
  properties: {
    city: { type: 'string' },
    temperature_c: { type: 'number' },
    conditions: { type: 'string' },
  },
  required: ['city', 'temperature_c', 'conditions'],
  additionalProperties: false,
};

describe('models', () => {
  it("lists the tenant's agents and default, retrieves one by id, name and name@version", async () => {
    const created = await stack.api('POST', '/v1/agents', {
      name: 'weather-bot',
      system_prompt: 'Be brief.',
    });
    expect(created.status).toBe(201);
    const list = await client.models.list();
    const ids = list.data.map((m) => m.id);
    expect(ids[0]).toBe('default');
    expect(ids).toContain(created.body.id);
    for (const m of list.data) {
      expect(m.object).toBe('model');
      expect(typeof m.created).toBe('number');
      expect(typeof m.owned_by).toBe('string');
    }

    expect((await client.models.retrieve(created.body.id as string)).id).toBe(created.body.id);
    expect((await client.models.retrieve('weather-bot')).id).toBe(created.body.id);
    expect((await client.models.retrieve('weather-bot@1')).id).toBe(created.body.id);
    expect((await client.models.retrieve('default')).owned_by).toBe('switchyard');

    for (const unknown of ['weather-bot@2', 'no-such-agent', 'default@3']) {
      const err = await refusal(client.models.retrieve(unknown));
      expect(err).toBeInstanceOf(OpenAI.NotFoundError);
      expect(err.code).toBe('model_not_found');
    }
    const noKey = new OpenAI({ apiKey: 'sy_live_wrong', baseURL: `${stack.gatewayUrl}/v1`, maxRetries: 0 });
    expect(await refusal(noKey.models.list())).toBeInstanceOf(OpenAI.AuthenticationError);
  }, 30_000);
});

describe('chat completions', () => {
  it('answers without streaming, for default and for an agent named by name@version', async () => {
    const completion = await client.chat.completions.create({
      model: 'default',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'say something' },
      ],
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0].message.content).toBe('one two three four five six seven eight');
    expect(completion.choices[0].finish_reason).toBe('stop');
    expect(completion.usage?.total_tokens).toBeGreaterThan(0);

    const { data, response } = await client.chat.completions
      .create({ model: 'weather-bot@1', messages: [{ role: 'user', content: 'say something' }] })
      .withResponse();
    expect(data.choices[0].message.content).toBe('one two three four five six seven eight');
    const run = await stack.api('GET', `/v1/runs/${response.headers.get('x-run-id')}`);
    expect(run.body.agent_id).toBe((await client.models.retrieve('weather-bot')).id);
  }, 60_000);

  it('streams the answer, then a usage chunk with stream_options.include_usage', async () => {
    const stream = await client.chat.completions.create({
      model: 'default',
      messages: [{ role: 'user', content: 'say something' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let chunks = 0;
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | undefined;
    let usageChoices = -1;
    for await (const chunk of stream) {
      chunks++;
      text += chunk.choices[0]?.delta?.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) {
        usage = chunk.usage;
        usageChoices = chunk.choices.length;
      }
    }
    expect(text).toBe('one two three four five six seven eight');
    expect(chunks).toBeGreaterThan(4);
    expect(finish).toBe('stop');
    expect(usage?.total_tokens).toBeGreaterThan(0);
    expect(usageChoices).toBe(0);
  }, 60_000);
});

describe('client tools', () => {
  it('pauses the run on a client function call and goes on with its result (non-streaming)', async () => {
    await stack.clearModelRequests();
    const messages: ChatCompletionMessageParam[] = [
      { role: 'user', content: '[weather] what is the weather in Paris?' },
    ];
    const first = await client.chat.completions
      .create({ model: 'default', messages, tools: [WEATHER] })
      .withResponse();
    const choice = first.data.choices[0];
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    const calls = choice.message.tool_calls ?? [];
    expect(calls).toHaveLength(1);
    const call = calls[0];
    if (call.type !== 'function') {
      throw new Error('expected a function call');
    }
    expect(call.function.name).toBe('get_weather');
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Paris' });
    expect((await stack.modelRulesUsed()).includes('planner-weather')).toBe(true);

    const runId = first.response.headers.get('x-run-id');
    const threadId = first.response.headers.get('x-thread-id');
    const paused = await stack.api('GET', `/v1/runs/${runId}`);
    expect(paused.body.status).toBe('waiting');

    const second = await client.chat.completions
      .create({
        model: 'default',
        messages: [
          ...messages,
          choice.message,
          { role: 'tool', tool_call_id: call.id, content: 'sunny, 21 C' },
        ],
        tools: [WEATHER],
      })
      .withResponse();
    expect(second.response.headers.get('x-run-id')).toBe(runId);
    expect(second.response.headers.get('x-thread-id')).toBe(threadId);
    expect(second.data.choices[0].finish_reason).toBe('stop');
    expect(second.data.choices[0].message.content).toBe('The weather: sunny, 21 C.');
    expect(second.data.usage?.total_tokens).toBeGreaterThan(0);

    const done = await stack.api('GET', `/v1/runs/${runId}`);
    expect(done.body.status).toBe('succeeded');
    const actions = await stack.api('GET', `/v1/runs/${runId}/actions`);
    const answered = (actions.body.actions as { node: string; result: unknown }[]).find(
      (a) => a.node === 'client_tool',
    );
    expect(answered?.result).toBe('sunny, 21 C');

    // The result was applied once: sending it again finds no paused run.
    const again = await refusal(
      client.chat.completions.create({
        model: 'default',
        messages: [...messages, choice.message, { role: 'tool', tool_call_id: call.id, content: 'again' }],
      }),
    );
    expect(again.status).toBe(400);
    expect(again.code).toBe('tool_call_not_found');
  }, 90_000);

  it('streams the tool calls, then the answer after the results (two calls at once)', async () => {
    const messages: ChatCompletionMessageParam[] = [
      { role: 'user', content: '[two-tools] weather and time in Oslo?' },
    ];
    const stream = await client.chat.completions.create({
      model: 'default',
      messages,
      tools: [WEATHER, TIME],
      stream: true,
      stream_options: { include_usage: true },
    });
    const calls = new Map<number, { id: string; name: string; arguments: string }>();
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      for (const d of chunk.choices[0]?.delta?.tool_calls ?? []) {
        const c = calls.get(d.index) ?? { id: '', name: '', arguments: '' };
        c.id += d.id ?? '';
        c.name += d.function?.name ?? '';
        c.arguments += d.function?.arguments ?? '';
        calls.set(d.index, c);
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
    }
    expect(finish).toBe('tool_calls');
    expect(usage?.total_tokens).toBeGreaterThan(0);
    const [weather, time] = [...calls.values()];
    expect(weather.name).toBe('get_weather');
    expect(JSON.parse(weather.arguments)).toEqual({ city: 'Oslo' });
    expect(time.name).toBe('get_time');
    expect(JSON.parse(time.arguments)).toEqual({ zone: 'CET' });

    const assistant: ChatCompletionMessageParam = {
      role: 'assistant',
      content: null,
      tool_calls: [weather, time].map((c) => ({
        id: c.id,
        type: 'function' as const,
        function: { name: c.name, arguments: c.arguments },
      })),
    };
    // Every call needs its result: one alone is refused, naming what is missing.
    const partial = await refusal(
      client.chat.completions.create({
        model: 'default',
        messages: [...messages, assistant, { role: 'tool', tool_call_id: weather.id, content: 'snow, -3 C' }],
        stream: true,
      }),
    );
    expect(partial).toBeInstanceOf(OpenAI.BadRequestError);
    expect(partial.param).toBe('messages');
    expect(partial.message).toContain(time.id);

    const resumed = await client.chat.completions.create({
      model: 'default',
      messages: [
        ...messages,
        assistant,
        { role: 'tool', tool_call_id: time.id, content: '14:05 CET' },
        { role: 'tool', tool_call_id: weather.id, content: 'snow, -3 C' },
      ],
      stream: true,
    });
    let text = '';
    finish = null;
    for await (const chunk of resumed) {
      text += chunk.choices[0]?.delta?.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(text).toBe('Oslo: snow, -3 C; time: 14:05 CET.');
    expect(finish).toBe('stop');
  }, 90_000);
});

describe('client tools through the runs API', () => {
  it('a run paused on a client function is resumed with tool_outputs on /v1/runs/:id/resume', async () => {
    const { data, response } = await client.chat.completions
      .create({
        model: 'default',
        messages: [{ role: 'user', content: '[weather] what is the weather in Rome?' }],
        tools: [WEATHER],
      })
      .withResponse();
    const call = data.choices[0].message.tool_calls?.[0];
    const runId = response.headers.get('x-run-id') ?? '';
    expect(call?.id).toBeTruthy();

    // The run's event stream says what it waits for (read until it goes quiet: the run waits).
    const events = await readSse(`${stack.gatewayUrl}/v1/runs/${runId}/events`, {
      headers: { Authorization: `Bearer ${stack.key}` },
      timeoutMs: 1500,
    });
    const waiting = events.frames.find((f) => f.event === 'waiting_for_user');
    expect(JSON.parse(waiting?.data ?? '{}').payload.tool_calls).toEqual([
      { id: call?.id, name: 'get_weather', arguments: { city: 'Rome' } },
    ]);

    const wrong = await stack.api('POST', `/v1/runs/${runId}/resume`, { input: { answer: 'sunny' } });
    expect(wrong.status).toBe(400);
    const unknown = await stack.api('POST', `/v1/runs/${runId}/resume`, {
      input: { tool_outputs: [{ tool_call_id: 'call_other', output: 'x' }] },
    });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).toContain(call?.id);

    const resumed = await stack.api('POST', `/v1/runs/${runId}/resume`, {
      input: { tool_outputs: [{ tool_call_id: call?.id, output: 'sunny, 18 C' }] },
    });
    expect(resumed.status).toBe(202);
    let run = await stack.api('GET', `/v1/runs/${runId}`);
    for (let i = 0; i < 100 && !['succeeded', 'failed'].includes(run.body.status as string); i++) {
      await new Promise((r) => setTimeout(r, 100));
      run = await stack.api('GET', `/v1/runs/${runId}`);
    }
    expect(run.body.status).toBe('succeeded');
    expect(run.body.output.answer).toBe('The weather: sunny, 18 C.');
  }, 60_000);
});

describe('response_format', () => {
  it('json_schema: the answer is JSON valid against the schema (an invalid reply is retried)', async () => {
    await stack.clearModelRequests();
    const { data, response } = await client.chat.completions
      .create({
        model: 'default',
        messages: [{ role: 'user', content: '[json-retry] the weather in Paris as JSON' }],
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'weather', schema: WEATHER_SCHEMA, strict: true },
        },
      })
      .withResponse();
    expect(JSON.parse(data.choices[0].message.content ?? '')).toEqual({
      city: 'Paris',
      temperature_c: 21,
      conditions: 'sunny',
    });
    // The first reply lacked two required fields: the schema sent it back once.
    const rules = await stack.modelRulesUsed();
    expect(rules).toContain('structured-invalid-once');
    expect(rules).toContain('structured-weather');
    expect(rules).not.toContain('output');
    const run = await stack.api('GET', `/v1/runs/${response.headers.get('x-run-id')}`);
    expect(run.body.output.structured).toEqual([
      expect.objectContaining({
        id: 'weather',
        content: { city: 'Paris', temperature_c: 21, conditions: 'sunny' },
      }),
    ]);
  }, 60_000);

  it('json_object, streamed: the answer is a JSON object', async () => {
    const stream = await client.chat.completions.create({
      model: 'default',
      messages: [{ role: 'user', content: '[json-object] the weather in Paris' }],
      response_format: { type: 'json_object' },
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
    }
    expect(JSON.parse(text)).toEqual({ city: 'Paris', temperature_c: 21, conditions: 'sunny' });
  }, 60_000);
});

describe('errors in OpenAI shape', () => {
  it('an unknown model is a NotFoundError (404, model_not_found)', async () => {
    const err = await refusal(
      client.chat.completions.create({
        model: 'gpt-nonexistent',
        messages: [{ role: 'user', content: 'hi' }],
      }),
    );
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect(err.status).toBe(404);
    expect(err.code).toBe('model_not_found');
    expect(err.param).toBe('model');
    expect(err.type).toBe('invalid_request_error');
  });

  const hi: ChatCompletionMessageParam[] = [{ role: 'user', content: 'hi' }];
  it.each<[string, Record<string, unknown>, string]>([
    ['n > 1', { n: 2 }, 'n'],
    ['temperature', { temperature: 0.2 }, 'temperature'],
    ['max_tokens', { max_tokens: 10 }, 'max_tokens'],
    ['logprobs', { logprobs: true }, 'logprobs'],
    ['audio modality', { modalities: ['text', 'audio'] }, 'modalities'],
    ['tool_choice required', { tools: [WEATHER], tool_choice: 'required' }, 'tool_choice'],
    [
      'a named tool_choice',
      { tools: [WEATHER], tool_choice: { type: 'function', function: { name: 'get_weather' } } },
      'tool_choice',
    ],
    ['parallel_tool_calls false', { tools: [WEATHER], parallel_tool_calls: false }, 'parallel_tool_calls'],
    ['an unknown field', { frobnicate: true }, 'frobnicate'],
    [
      'an image part',
      {
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'http://x/y.png' } }] }],
      },
      'messages[0].content[0].type',
    ],
    ['the function role', { messages: [{ role: 'function', name: 'f', content: 'x' }] }, 'messages[0].role'],
    [
      'an assistant message last',
      { messages: [...hi, { role: 'assistant', content: 'hello' }] },
      'messages[1].role',
    ],
    [
      'a schema that does not compile',
      { response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'nope' } } } },
      'response_format.json_schema.schema',
    ],
  ])('%s is a 400 naming the field', async (_, extra, param) => {
    const err = await refusal(
      client.chat.completions.create({
        model: 'default',
        messages: hi,
        ...extra,
      } as OpenAI.ChatCompletionCreateParamsNonStreaming),
    );
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err.status).toBe(400);
    expect(err.param).toBe(param);
    expect(err.type).toBe('invalid_request_error');
  });

  it('a tool result for a call nobody made is a 400 naming the message', async () => {
    const err = await refusal(
      client.chat.completions.create({
        model: 'default',
        messages: [
          ...hi,
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_nope', type: 'function', function: { name: 'get_weather', arguments: '{}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_nope', content: 'x' },
        ],
      }),
    );
    expect(err.status).toBe(400);
    expect(err.code).toBe('tool_call_not_found');
    expect(err.param).toBe('messages[2].tool_call_id');
  });
});
