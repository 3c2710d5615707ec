import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import {
  AIMessage,
  type AIMessageChunk,
  HumanMessage,
  SystemMessage,
  ToolMessage,
  type BaseMessage,
} from '@langchain/core/messages';
import { ChatAnthropic } from '@langchain/anthropic';
import { ChatOllama, OllamaEmbeddings } from '@langchain/ollama';
import { ChatOpenAI, OpenAIEmbeddings } from '@langchain/openai';
import { parseScript, ScriptValidationError, type Script } from '../src/script.schema';
import { startScriptedLlm, type RequestRecord, type ScriptedLlm } from '../src/scripted-llm.server';

// Everything goes over real HTTP, mostly through langchain's ChatOpenAI, because that is how the
// services will reach this server: a parse mismatch with the real client is the bug worth catching.

const REPO_ROOT = resolve(__dirname, '../../..');
const DEMO_SCRIPT = resolve(__dirname, '../scripts/demo.json');

const calculatorTool = {
  type: 'function' as const,
  function: {
    name: 'calculator',
    description: 'Evaluates an arithmetic expression',
    parameters: {
      type: 'object',
      properties: { expression: { type: 'string' } },
      required: ['expression'],
    },
  },
};
const lookupTool = {
  type: 'function' as const,
  function: {
    name: 'lookup',
    description: 'Looks something up',
    parameters: { type: 'object', properties: {} },
  },
};

interface ErrorBody {
  error: { message: string; type: string; code: string; issues?: { path: (string | number)[] }[] };
}
interface ChunkFrame {
  object: string;
  choices: {
    delta: {
      role?: string;
      content?: string;
      tool_calls?: {
        index: number;
        id?: string;
        type?: string;
        function: { name?: string; arguments: string };
      }[];
    };
    finish_reason: string | null;
  }[];
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | null;
}
interface EmbeddingsBody {
  object: string;
  data: { object: string; index: number; embedding: number[] }[];
  usage: { prompt_tokens: number; total_tokens: number };
}

let llm: ScriptedLlm;
const admin = (path: string): string => `${llm.url.replace(/\/v1$/, '')}${path}`;

function model(fields: Partial<ConstructorParameters<typeof ChatOpenAI>[0]> = {}): ChatOpenAI {
  return new ChatOpenAI({
    model: 'scripted',
    apiKey: 'test',
    configuration: { baseURL: llm.url },
    maxRetries: 0,
    ...fields,
  });
}

async function postJson(path: string, body: unknown, init: RequestInit = {}): Promise<Response> {
  return fetch(`${llm.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    ...init,
  });
}

/** A client that asks for JSON natively (response_format json_object). */
function asksJson() {
  return model().withConfig({ response_format: { type: 'json_object' } });
}

async function records(): Promise<RequestRecord[]> {
  return (await (await fetch(admin('/_requests'))).json()) as RequestRecord[];
}

/** Raw SSE frames of a streamed completion (the `[DONE]` sentinel reported separately). */
async function streamFrames(body: Record<string, unknown>): Promise<{ frames: ChunkFrame[]; done: boolean }> {
  const res = await postJson('/chat/completions', { model: 'scripted', stream: true, ...body });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const events = (await res.text()).split('\n\n').filter((e) => e !== '');
  for (const e of events) {
    expect(e.startsWith('data: ')).toBe(true);
  }
  const payloads = events.map((e) => e.slice('data: '.length));
  const done = payloads[payloads.length - 1] === '[DONE]';
  return { frames: payloads.filter((p) => p !== '[DONE]').map((p) => JSON.parse(p) as ChunkFrame), done };
}

async function collect(
  stream: AsyncIterable<AIMessageChunk>,
): Promise<{ chunks: AIMessageChunk[]; full: AIMessageChunk }> {
  const chunks: AIMessageChunk[] = [];
  for await (const chunk of stream) {
    chunks.push(chunk);
  }
  expect(chunks.length).toBeGreaterThan(0);
  return { chunks, full: chunks.reduce((acc, c) => acc.concat(c)) };
}

function norm(v: number[]): number {
  return Math.hypot(...v);
}
function cosine(a: number[], b: number[]): number {
  return a.reduce((sum, x, i) => sum + x * b[i], 0) / (norm(a) * norm(b));
}

beforeAll(async () => {
  llm = await startScriptedLlm({ port: 0, script: { rules: [] } });
});
afterAll(async () => {
  await llm.close();
});
beforeEach(async () => {
  await fetch(admin('/_requests'), { method: 'DELETE' });
});

describe('chat completions through ChatOpenAI', () => {
  it('answers a non-streamed request with the rule content and scripted usage', async () => {
    llm.setScript({
      rules: [
        { name: 'other', when: { user_includes: 'bye' }, reply: { content: 'wrong rule' } },
        {
          name: 'greet',
          when: { user_includes: 'hello' },
          reply: { content: 'Hello there, friend!', usage: { prompt_tokens: 20, completion_tokens: 5 } },
        },
      ],
    });
    const res = await model().invoke([new SystemMessage('Be nice.'), new HumanMessage('hello bot')]);
    expect(res.content).toBe('Hello there, friend!');
    expect(res.usage_metadata).toMatchObject({ input_tokens: 20, output_tokens: 5, total_tokens: 25 });
    expect(res.response_metadata.finish_reason).toBe('stop');
    expect(await records()).toEqual([
      expect.objectContaining({
        path: '/v1/chat/completions',
        rule: 'greet',
        stream: false,
        aborted: false,
        messages_count: 2,
        status: 200,
      }),
    ]);
  });

  it('streams text in word-sized chunks that concatenate to the content, with usage (streamUsage)', async () => {
    const content = 'The quick  brown fox\njumps over the lazy dog.';
    llm.setScript({
      rules: [{ name: 'story', reply: { content, usage: { prompt_tokens: 11, completion_tokens: 9 } } }],
    });
    const { chunks, full } = await collect(await model({ streamUsage: true }).stream('tell me a story'));
    const pieces = chunks.map((c) => c.content).filter((c) => c !== '');
    expect(pieces.length).toBeGreaterThanOrEqual(9);
    expect(pieces.join('')).toBe(content);
    expect(full.content).toBe(content);
    expect(full.usage_metadata).toMatchObject({ input_tokens: 11, output_tokens: 9, total_tokens: 20 });
    expect((await records())[0]).toMatchObject({ rule: 'story', stream: true, aborted: false, status: 200 });
  });

  it('computes default usage from word counts when the rule gives none', async () => {
    llm.setScript({ rules: [{ name: 'plain', reply: { content: 'one two three' } }] });
    const res = await model().invoke([new SystemMessage('a b'), new HumanMessage('c d e')]);
    expect(res.usage_metadata).toMatchObject({ input_tokens: 5, output_tokens: 3, total_tokens: 8 });
  });

  it('returns tool calls (non-stream) that bindTools parses into name and args', async () => {
    llm.setScript({
      rules: [
        {
          name: 'plan',
          when: { has_tools: true, tools_include: 'calculator' },
          reply: {
            tool_calls: [
              { name: 'calculator', arguments: { expression: '{{echo:compute ([0-9+*]+)}}' } },
              { name: 'lookup', arguments: { q: 'fixed', nested: { list: ['{{last_user}}', 3] } } },
            ],
            usage: { prompt_tokens: 7, completion_tokens: 4 },
          },
        },
        { name: 'no-tools', when: { has_tools: false }, reply: { content: 'plain answer' } },
      ],
    });
    const res = await model()
      .bindTools([calculatorTool, lookupTool])
      .invoke([new HumanMessage('please compute 2+3*4 now')]);
    expect(res.content).toBe('');
    expect(res.response_metadata.finish_reason).toBe('tool_calls');
    expect(res.tool_calls).toEqual([
      expect.objectContaining({
        name: 'calculator',
        args: { expression: '2+3*4' },
        id: expect.stringMatching(/^call_/),
      }),
      expect.objectContaining({
        name: 'lookup',
        args: { q: 'fixed', nested: { list: ['please compute 2+3*4 now', 3] } },
        id: expect.stringMatching(/^call_/),
      }),
    ]);
    expect(res.tool_calls?.[0].id).not.toBe(res.tool_calls?.[1].id);
    expect(res.usage_metadata).toMatchObject({ total_tokens: 11 });

    // Same conversation without tools: has_tools false selects the other rule.
    expect((await model().invoke('please compute 2+3*4 now')).content).toBe('plain answer');
  });

  it('streams tool calls the way OpenAI does, and bindTools reassembles them', async () => {
    llm.setScript({
      rules: [
        {
          name: 'plan',
          when: { tools_include: 'calculator' },
          reply: {
            content: 'Let me calculate.',
            tool_calls: [
              { name: 'calculator', arguments: { expression: '(1+2)*3' } },
              { name: 'lookup', arguments: { topic: 'arithmetic', depth: 2 } },
            ],
            chunk_delay_ms: 1,
          },
        },
      ],
    });
    const { full } = await collect(
      await model()
        .bindTools([calculatorTool, lookupTool])
        .stream([new HumanMessage('do it')]),
    );
    expect(full.content).toBe('Let me calculate.');
    expect(full.tool_calls).toEqual([
      expect.objectContaining({
        name: 'calculator',
        args: { expression: '(1+2)*3' },
        id: expect.stringMatching(/^call_/),
      }),
      expect.objectContaining({ name: 'lookup', args: { topic: 'arithmetic', depth: 2 } }),
    ]);
    expect(full.response_metadata.finish_reason).toBe('tool_calls');

    // The wire format itself: id/type/name only in the first delta of each call, arguments in 2+ pieces.
    const { frames, done } = await streamFrames({
      messages: [{ role: 'user', content: 'do it' }],
      tools: [calculatorTool, lookupTool],
    });
    expect(done).toBe(true);
    const deltas = frames.flatMap((f) => f.choices.map((c) => c.delta));
    const callDeltas = deltas.flatMap((d) => d.tool_calls ?? []);
    for (const [index, name] of ['calculator', 'lookup'].entries()) {
      const [head, ...rest] = callDeltas.filter((c) => c.index === index);
      expect(head).toMatchObject({
        index,
        id: expect.stringMatching(/^call_/),
        type: 'function',
        function: { name },
      });
      expect(rest.length).toBeGreaterThanOrEqual(2);
      for (const piece of rest) {
        expect(piece.id ?? piece.function.name).toBeUndefined();
      }
      expect(JSON.parse(rest.map((p) => p.function.arguments).join(''))).toEqual(
        index === 0 ? { expression: '(1+2)*3' } : { topic: 'arithmetic', depth: 2 },
      );
    }
    expect(frames[frames.length - 1].choices[0].finish_reason).toBe('tool_calls');
  });

  it('frames a stream as role chunk, content pieces, finish chunk, usage chunk, [DONE]', async () => {
    llm.setScript({
      rules: [
        {
          name: 'x',
          reply: { content: 'a b c', chunk_delay_ms: 40, usage: { prompt_tokens: 1, completion_tokens: 2 } },
        },
      ],
    });
    const started = Date.now();
    const { frames, done } = await streamFrames({
      messages: [{ role: 'user', content: 'go' }],
      stream_options: { include_usage: true },
    });
    // 6 frames plus [DONE]: 6 gaps of 40 ms.
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    expect(done).toBe(true);
    expect(frames.every((f) => f.object === 'chat.completion.chunk')).toBe(true);
    expect(frames[0].choices[0].delta).toMatchObject({ role: 'assistant', content: '' });
    expect(frames.slice(1, 4).map((f) => f.choices[0].delta.content)).toEqual(['a ', 'b ', 'c']);
    expect(frames[4].choices[0]).toMatchObject({ delta: {}, finish_reason: 'stop' });
    expect(frames[5]).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
    });

    // Without include_usage there is no usage chunk.
    const plain = await streamFrames({ messages: [{ role: 'user', content: 'go' }] });
    expect(plain.frames).toHaveLength(5);
    expect(plain.frames.some((f) => f.usage)).toBe(false);
  });
});

describe('rule selection', () => {
  it('checks every `when` condition, first match wins, substrings case-sensitive', async () => {
    llm.setScript({
      rules: [
        { name: 'sys', when: { system_includes: '[mode:a]' }, reply: { content: 'sys' } },
        { name: 'tool-last', when: { last_role: 'tool' }, reply: { content: 'tool-last' } },
        {
          name: 'many-users',
          when: { count_role: { role: 'user', min: 2, max: 3 } },
          reply: { content: 'many-users' },
        },
        { name: 'any', when: { any_includes: 'needle' }, reply: { content: 'any' } },
        { name: 'user', when: { user_includes: 'Hello', last_role: 'user' }, reply: { content: 'user' } },
        { name: 'fallback', reply: { content: 'fallback' } },
      ],
    });
    const toolTurn: BaseMessage[] = [
      new HumanMessage('q'),
      new AIMessage({ content: '', tool_calls: [{ id: 'call_1', name: 'calculator', args: {} }] }),
      new ToolMessage({ content: 'result', tool_call_id: 'call_1' }),
    ];
    const cases: [BaseMessage[], string][] = [
      [[new SystemMessage('you are [mode:a]'), new HumanMessage('Hello')], 'sys'],
      [toolTurn, 'tool-last'],
      [[new HumanMessage('1'), new AIMessage('x'), new HumanMessage('2')], 'many-users'],
      [
        [new HumanMessage('1'), new HumanMessage('2'), new HumanMessage('3'), new HumanMessage('4')],
        'fallback',
      ],
      [[new SystemMessage('find the needle'), new HumanMessage('x')], 'any'],
      [[new HumanMessage('Hello you')], 'user'],
      [[new HumanMessage('hello you')], 'fallback'],
      [[new SystemMessage('[mode:b]'), new HumanMessage('Hello')], 'user'],
    ];
    for (const [messages, expected] of cases) {
      expect({ expected, got: (await model().invoke(messages)).content }).toEqual({
        expected,
        got: expected,
      });
    }
  });

  it('fills {{last_user}}, {{tool_result}}, {{echo:REGEX}} and {{json:…}} templates', async () => {
    llm.setScript({
      rules: [
        {
          name: 't',
          reply: {
            content:
              'user=[{{last_user}}] tool=[{{tool_result}}] value=[{{echo:"value":\\s*(\\d+)}}] ' +
              'missing=[{{echo:zzz(\\d)}}] count=[{{echo:[0-9]{3}}}] json=[{{json:tool_result}}] ' +
              'newest=[{{echo:(first|second) }}]',
          },
        },
      ],
    });
    const res = await model().invoke([
      new SystemMessage('system 12345'),
      new HumanMessage('first question'),
      new AIMessage({ content: '', tool_calls: [{ id: 'call_1', name: 'calculator', args: {} }] }),
      new ToolMessage({ content: '{"value": 14}', tool_call_id: 'call_1' }),
      new HumanMessage('second "question"'),
    ]);
    expect(res.content).toBe(
      'user=[second "question"] tool=[{"value": 14}] value=[14] missing=[] count=[123] ' +
        'json=[{\\"value\\": 14}] newest=[second]',
    );
  });

  it('uses a rule at most `times` times, and a new script resets the counters', async () => {
    const script: Script = {
      rules: [
        { name: 'once', times: 1, reply: { content: 'first' } },
        { name: 'twice', times: 2, reply: { content: 'second' } },
        { name: 'after', reply: { content: 'rest' } },
      ],
    };
    llm.setScript(script);
    const answers: unknown[] = [];
    for (let i = 0; i < 5; i++) {
      answers.push((await model().invoke('go')).content);
    }
    expect(answers).toEqual(['first', 'second', 'second', 'rest', 'rest']);
    expect((await records()).map((r) => r.rule)).toEqual(['once', 'twice', 'twice', 'after', 'after']);
    llm.setScript(script);
    expect((await model().invoke('go')).content).toBe('first');
  });

  it('matches `api_key` on the bearer token and records only its fingerprint', async () => {
    llm.setScript({
      rules: [
        { name: 'key-a', when: { api_key: 'sk-key-a' }, reply: { status: 401, error_message: 'refused' } },
        { name: 'others', reply: { content: 'ok' } },
      ],
    });
    await expect(model({ apiKey: 'sk-key-a' }).invoke('go')).rejects.toMatchObject({ status: 401 });
    expect((await model({ apiKey: 'sk-key-b' }).invoke('go')).content).toBe('ok');
    const recs = await records();
    expect(recs.map((r) => [r.rule, r.status])).toEqual([
      ['key-a', 401],
      ['others', 200],
    ]);
    expect(recs[0].api_key_fingerprint).toBe(
      createHash('sha256').update('sk-key-a').digest('hex').slice(0, 12),
    );
    expect(recs[1].api_key_fingerprint).toMatch(/^[0-9a-f]{12}$/);
    expect(JSON.stringify(recs)).not.toContain('sk-key');
  });
});

describe('errors', () => {
  it('replies with a scripted 429 and retry-after; ChatOpenAI with maxRetries 0 throws', async () => {
    llm.setScript({
      rules: [
        { name: 'limited', times: 2, reply: { status: 429, error_message: 'slow down', retry_after: 7 } },
        { name: 'ok', reply: { content: 'ok now' } },
      ],
    });
    const raw = await postJson('/chat/completions', {
      model: 'scripted',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(raw.status).toBe(429);
    expect(raw.headers.get('retry-after')).toBe('7');
    expect(await raw.json()).toEqual({
      error: { message: 'slow down', type: 'rate_limit_error', code: expect.any(String) },
    });

    const err = (await model()
      .invoke('hi')
      .then(
        () => undefined,
        (e: unknown) => e,
      )) as (Error & { status?: number }) | undefined;
    expect(err).toBeInstanceOf(Error);
    expect(err?.message).toMatch(/slow down/);
    expect(err?.status).toBe(429);

    // `times` used up: the next request gets through.
    expect((await model().invoke('hi')).content).toBe('ok now');
    expect((await records()).map((r) => [r.rule, r.status])).toEqual([
      ['limited', 429],
      ['limited', 429],
      ['ok', 200],
    ]);
  });

  it('answers 500 naming the last user message when no rule matches', async () => {
    llm.setScript({
      rules: [{ name: 'only', when: { user_includes: 'weather' }, reply: { content: 'sunny' } }],
    });
    const raw = await postJson('/chat/completions', {
      model: 'scripted',
      messages: [{ role: 'user', content: 'what now?' }],
    });
    expect(raw.status).toBe(500);
    expect(((await raw.json()) as ErrorBody).error).toEqual({
      message: 'scripted-llm: no rule matched (last user message: "what now?")',
      type: 'server_error',
      code: 'no_rule_matched',
    });
    await expect(model().invoke('still nothing')).rejects.toThrow(
      'scripted-llm: no rule matched (last user message: "still nothing")',
    );
    expect((await records()).map((r) => [r.rule, r.status])).toEqual([
      [null, 500],
      [null, 500],
    ]);
  });

  it('rejects malformed JSON, invalid requests and unknown routes in OpenAI error shape', async () => {
    const bad = await fetch(`${llm.url}/chat/completions`, { method: 'POST', body: '{"model": ' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as ErrorBody).error).toMatchObject({
      type: 'invalid_request_error',
      code: 'invalid_json',
      message: expect.stringMatching(/^Malformed JSON body/),
    });

    const noMessages = await postJson('/chat/completions', { model: 'scripted' });
    expect(noMessages.status).toBe(400);
    expect(((await noMessages.json()) as ErrorBody).error.message).toMatch(/messages/);

    for (const [method, path] of [
      ['GET', '/v1/nothing'],
      ['GET', '/v1/chat/completions'],
      ['POST', '/v1/models'],
    ]) {
      const res = await fetch(admin(path), { method });
      expect(res.status).toBe(404);
      expect(((await res.json()) as ErrorBody).error).toEqual({
        message: `scripted-llm: no route for ${method} ${path}`,
        type: 'not_found_error',
        code: 'not_found',
      });
    }
  });

  it('records a request the client aborted during delay_ms', async () => {
    llm.setScript({ rules: [{ name: 'slow', reply: { content: 'too late', delay_ms: 5000 } }] });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 150);
    const started = Date.now();
    await expect(model().invoke('hurry', { signal: controller.signal })).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(2000);

    let record: RequestRecord | undefined;
    for (let i = 0; i < 50 && !record?.aborted; i++) {
      [record] = await records();
      if (!record?.aborted) {
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    expect(record).toMatchObject({ rule: 'slow', aborted: true, stream: false });
    expect(record?.aborted_after_ms).toBeGreaterThanOrEqual(100);
    expect(record?.aborted_after_ms).toBeLessThan(2000);
    expect(record?.status).toBeUndefined();
  });

  it('records a stream the client abandoned half-way', async () => {
    llm.setScript({ rules: [{ name: 'long', reply: { content: 'w '.repeat(100), chunk_delay_ms: 50 } }] });
    const controller = new AbortController();
    const res = await postJson(
      '/chat/completions',
      { model: 'scripted', stream: true, messages: [{ role: 'user', content: 'go' }] },
      { signal: controller.signal },
    );
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    await reader.closed.catch(() => undefined);

    let record: RequestRecord | undefined;
    for (let i = 0; i < 50 && !record?.aborted; i++) {
      [record] = await records();
      if (!record?.aborted) {
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    expect(record).toMatchObject({ rule: 'long', aborted: true, stream: true, status: 200 });
  });
});

describe('embeddings and models', () => {
  it('returns deterministic, L2-normalised hash embeddings', async () => {
    llm.setScript({ rules: [] });
    const input = [
      'The cat sat on the mat',
      'the CAT sat on the mat!',
      'Quarterly revenue grew strongly',
      '',
    ];
    const first = (await (await postJson('/embeddings', { model: 'emb', input })).json()) as EmbeddingsBody;
    const second = (await (await postJson('/embeddings', { model: 'emb', input })).json()) as EmbeddingsBody;
    expect(first).toEqual(second);
    expect(first.object).toBe('list');
    expect(first.usage).toEqual({ prompt_tokens: 16, total_tokens: 16 });
    expect(first.data.map((d) => [d.object, d.index, d.embedding.length])).toEqual([
      ['embedding', 0, 64],
      ['embedding', 1, 64],
      ['embedding', 2, 64],
      ['embedding', 3, 64],
    ]);
    for (const d of first.data) {
      expect(norm(d.embedding)).toBeCloseTo(1, 10);
    }
    const [cat, catAgain, revenue] = first.data.map((d) => d.embedding);
    // Lower-casing and word splitting make these identical; unrelated text lands elsewhere.
    expect(catAgain).toEqual(cat);
    expect(cosine(cat, revenue)).toBeLessThan(0.5);
    const related = (await (
      await postJson('/embeddings', { input: 'the cat sat' })
    ).json()) as EmbeddingsBody;
    expect(cosine(cat, related.data[0].embedding)).toBeGreaterThan(cosine(cat, revenue));
  });

  it('takes dimensions from the script, or from the request', async () => {
    llm.setScript({ embeddings: { dimensions: 16 }, rules: [] });
    const fromScript = (await (await postJson('/embeddings', { input: 'a b' })).json()) as EmbeddingsBody;
    expect(fromScript.data[0].embedding).toHaveLength(16);
    const fromRequest = (await (
      await postJson('/embeddings', { input: 'a b', dimensions: 8 })
    ).json()) as EmbeddingsBody;
    expect(fromRequest.data[0].embedding).toHaveLength(8);
  });

  it('answers scripted vectors for the inputs the script names, hash embeddings of their size otherwise', async () => {
    llm.setScript({ embeddings: { vectors: { query: [1, 0], near: [0.6, 0.8] } }, rules: [] });
    const body = (await (
      await postJson('/embeddings', { input: ['query', 'near', 'other text'] })
    ).json()) as EmbeddingsBody;
    expect(body.data.map((d) => d.embedding)).toEqual([[1, 0], [0.6, 0.8], expect.any(Array)]);
    expect(body.data[2].embedding).toHaveLength(2);
    expect(() => llm.setScript({ embeddings: { vectors: { a: [1], b: [1, 0] } }, rules: [] })).toThrow(
      'same size',
    );
  });

  it('works with OpenAIEmbeddings (which asks for base64 by default)', async () => {
    llm.setScript({ rules: [] });
    const embeddings = new OpenAIEmbeddings({
      model: 'scripted-embeddings',
      apiKey: 'test',
      configuration: { baseURL: llm.url },
      maxRetries: 0,
    });
    const [query, docs] = await Promise.all([
      embeddings.embedQuery('Switchyard routes agent tasks'),
      embeddings.embedDocuments(['Switchyard routes agent tasks', 'bananas are yellow']),
    ]);
    const plain = (await (
      await postJson('/embeddings', { input: 'Switchyard routes agent tasks' })
    ).json()) as EmbeddingsBody;
    expect(query).toHaveLength(64);
    query.forEach((v, i) => expect(v).toBeCloseTo(plain.data[0].embedding[i], 6));
    expect(docs[0]).toEqual(query);
    expect(cosine(docs[0], docs[1])).toBeLessThan(0.9);
  });

  it('lists the script models', async () => {
    llm.setScript({ rules: [] });
    const byDefault = await (await fetch(`${llm.url}/models`)).json();
    expect(byDefault).toEqual({
      object: 'list',
      data: [
        { id: 'scripted', object: 'model', created: expect.any(Number), owned_by: 'switchyard-scripted' },
      ],
    });
    llm.setScript({ models: ['alpha', 'beta'], rules: [] });
    const listed = (await (await fetch(`${llm.url}/models`)).json()) as { data: { id: string }[] };
    expect(listed.data.map((m) => m.id)).toEqual(['alpha', 'beta']);
  });
});

describe('other vendor dialects: Anthropic Messages and Ollama', () => {
  const root = (): string => llm.url.replace(/\/v1$/, '');
  const dialectRules: Script = {
    rules: [
      {
        name: 'limited',
        when: { api_key: 'sk-ant-limited' },
        reply: { status: 429, retry_after: 7, error_message: 'slow down' },
      },
      {
        name: 'after-tool',
        when: { last_role: 'tool' },
        reply: { content: 'The tool said {{tool_result}}.' },
      },
      {
        name: 'calc',
        when: { tools_include: 'calculator' },
        reply: {
          content: 'Let me compute.',
          tool_calls: [{ name: 'calculator', arguments: { expression: '{{echo:compute ([0-9+*]+)}}' } }],
          usage: { prompt_tokens: 9, completion_tokens: 6 },
        },
      },
      {
        name: 'answer',
        when: { system_includes: '[sys]' },
        reply: {
          content: 'Hello from the script, {{last_user}}',
          usage: { prompt_tokens: 12, completion_tokens: 5 },
        },
      },
    ],
  };
  const anthropic = (apiKey = 'sk-ant-ok') =>
    new ChatAnthropic({
      model: 'claude-scripted',
      apiKey,
      anthropicApiUrl: root(),
      maxRetries: 0,
      streamUsage: true,
    });
  const ollama = () => new ChatOllama({ model: 'llama-scripted', baseUrl: root() });
  const ask = [new SystemMessage('[sys] be brief'), new HumanMessage('Ada')];

  beforeEach(() => llm.setScript(dialectRules));

  it('ChatAnthropic: invoke and stream give the rule content and usage; the system prompt matches', async () => {
    const res = await anthropic().invoke(ask);
    expect(res.content).toBe('Hello from the script, Ada');
    expect(res.usage_metadata).toMatchObject({ input_tokens: 12, output_tokens: 5, total_tokens: 17 });
    const { chunks, full } = await collect(await anthropic().stream(ask));
    expect(chunks.length).toBeGreaterThan(2);
    expect(full.content).toBe('Hello from the script, Ada');
    expect(full.usage_metadata).toMatchObject({ input_tokens: 12, output_tokens: 5, total_tokens: 17 });
    const recs = await records();
    expect(recs.map((r) => [r.path, r.rule, r.stream, r.api_key_fingerprint])).toEqual([
      ['/v1/messages', 'answer', false, createHash('sha256').update('sk-ant-ok').digest('hex').slice(0, 12)],
      ['/v1/messages', 'answer', true, createHash('sha256').update('sk-ant-ok').digest('hex').slice(0, 12)],
    ]);
  });

  it('ChatAnthropic: tool_use blocks become tool calls (invoke and stream); a tool_result is a tool message', async () => {
    const bound = anthropic().bindTools([calculatorTool]);
    const res = await bound.invoke([new HumanMessage('compute 6*7')]);
    expect(res.tool_calls).toEqual([
      expect.objectContaining({
        name: 'calculator',
        args: { expression: '6*7' },
        id: expect.stringMatching(/^toolu_/),
      }),
    ]);
    const { full } = await collect(await bound.stream([new HumanMessage('compute 2+2')]));
    expect(full.tool_calls?.map((t) => [t.name, t.args])).toEqual([['calculator', { expression: '2+2' }]]);
    const id = res.tool_calls![0].id!;
    const after = await bound.invoke([
      new HumanMessage('compute 6*7'),
      res,
      new ToolMessage({ content: '42', tool_call_id: id }),
    ]);
    expect(after.content).toBe('The tool said 42.');
  });

  it('ChatAnthropic: a scripted 429 carries retry-after in the Anthropic error shape', async () => {
    const err = (await anthropic('sk-ant-limited')
      .invoke(ask)
      .catch((e: unknown) => e)) as { status?: number; headers?: Headers | Record<string, string> };
    expect(err.status).toBe(429);
    const raw = await fetch(`${root()}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-limited' },
      body: JSON.stringify({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(raw.status).toBe(429);
    expect(raw.headers.get('retry-after')).toBe('7');
    expect(await raw.json()).toEqual({
      type: 'error',
      error: { type: 'rate_limit_error', message: 'slow down' },
    });
  });

  it('ChatOllama: streamed chat, tool calls and a tool message; usage from the eval counts', async () => {
    const res = await ollama().invoke(ask);
    expect(res.content).toBe('Hello from the script, Ada');
    expect(res.usage_metadata).toMatchObject({ input_tokens: 12, output_tokens: 5, total_tokens: 17 });
    const { chunks, full } = await collect(await ollama().stream(ask));
    expect(chunks.length).toBeGreaterThan(2);
    expect(full.content).toBe('Hello from the script, Ada');
    const bound = ollama().bindTools([calculatorTool]);
    const call = await bound.invoke([new HumanMessage('compute 3*3')]);
    expect(call.tool_calls?.map((t) => [t.name, t.args])).toEqual([['calculator', { expression: '3*3' }]]);
    const after = await bound.invoke([
      new HumanMessage('compute 3*3'),
      call,
      new ToolMessage({ content: '9', tool_call_id: call.tool_calls![0].id ?? 'x' }),
    ]);
    expect(after.content).toBe('The tool said 9.');
    expect((await records()).every((r) => r.path === '/api/chat')).toBe(true);
  });

  it('OllamaEmbeddings: /api/embed answers the same vectors as /v1/embeddings', async () => {
    const vectors = await new OllamaEmbeddings({ model: 'embed-scripted', baseUrl: root() }).embedDocuments([
      'checkpoints in postgres',
      'a cat on a mat',
    ]);
    const openai = await new OpenAIEmbeddings({
      model: 'x',
      apiKey: 'test',
      configuration: { baseURL: llm.url },
    }).embedDocuments(['checkpoints in postgres', 'a cat on a mat']);
    expect(vectors).toHaveLength(2);
    for (const [i, v] of vectors.entries()) {
      expect(v.length).toBe(openai[i].length);
      expect(cosine(v, openai[i])).toBeCloseTo(1, 6);
    }
  });
});

describe('script management', () => {
  it('PUT /_script validates, reports zod issues, and keeps the old script on failure', async () => {
    llm.setScript({ rules: [{ name: 'old', reply: { content: 'old script' } }] });
    const bad = await fetch(admin('/_script'), {
      method: 'PUT',
      body: JSON.stringify({
        rules: [
          { name: 'a', when: { user_include: 'typo' }, reply: { content: 'x' } },
          { name: 'b', reply: { content: '{{nope}}' } },
          { name: 'b', reply: { retry_after: 3 } },
          { name: 'c', reply: { content: '{{echo:(unclosed}}' } },
        ],
      }),
    });
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as ErrorBody;
    expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_script' });
    expect(body.error.message).toMatch(/^invalid script: /);
    expect(body.error.message).toMatch(/user_include/);
    expect(body.error.message).toMatch(/unknown template "\{\{nope\}\}"/);
    expect(body.error.message).toMatch(/duplicate rule name "b"/);
    expect(body.error.message).toMatch(/invalid regular expression/);
    const paths = body.error.issues?.map((i) => i.path.join('.'));
    expect(paths).toEqual(
      expect.arrayContaining([
        'rules.0.when',
        'rules.1.reply.content',
        'rules.2.reply',
        'rules.2.reply.retry_after',
        'rules.2.name',
        'rules.3.reply.content',
      ]),
    );
    expect((await model().invoke('hi')).content).toBe('old script');

    const good = await fetch(admin('/_script'), {
      method: 'PUT',
      body: JSON.stringify({ rules: [{ name: 'new', times: 1, reply: { content: 'new script' } }] }),
    });
    expect(good.status).toBe(200);
    expect(await good.json()).toEqual({ ok: true, rules: ['new'] });
    expect((await model().invoke('hi')).content).toBe('new script');
    expect(((await (await fetch(admin('/_script'))).json()) as Script).rules[0].name).toBe('new');

    const notJson = await fetch(admin('/_script'), { method: 'PUT', body: 'rules:' });
    expect(notJson.status).toBe(400);
  });

  it('setScript throws ScriptValidationError on a bad script; DELETE /_requests clears the live list', async () => {
    expect(() => llm.setScript({ rules: [{ name: '', reply: {} }] } as Script)).toThrow(
      ScriptValidationError,
    );
    llm.setScript({ rules: [{ name: 'r', reply: { content: 'x' } }] });
    await model().invoke('a');
    expect(llm.requests).toHaveLength(1);
    expect((await records()).map((r) => r.id)).toEqual([llm.requests[0].id]);
    expect((await fetch(admin('/_requests'), { method: 'DELETE' })).status).toBe(200);
    expect(llm.requests).toHaveLength(0);
    expect(await records()).toEqual([]);
  });
});

describe('demo.json', () => {
  const demo = parseScript(JSON.parse(readFileSync(DEMO_SCRIPT, 'utf8')));
  const usageOf = (name: string): number => {
    const usage = demo.rules.find((r) => r.name === name)?.reply.usage;
    if (!usage) {
      throw new Error(`demo rule ${name} has no usage`);
    }
    return usage.prompt_tokens + usage.completion_tokens;
  };

  it('drives intake → planner → tool → reflection → output', async () => {
    llm.setScript(demo);
    const question = 'what is 2+3*4?';
    let total = 0;
    const count = (m: AIMessage | AIMessageChunk): void => {
      total += m.usage_metadata?.total_tokens ?? 0;
    };

    // demo.json is strict: structured steps ask for JSON natively, as the services do.
    const intake = await asksJson().invoke([
      new SystemMessage('[switchyard:intake] Classify.'),
      new HumanMessage(question),
    ]);
    count(intake);
    expect(JSON.parse(intake.content as string)).toEqual({
      task_goal: question,
      scenario: 'question',
      output_style: 'concise',
    });

    const planner = model().bindTools([calculatorTool]);
    const plannerSystem = new SystemMessage('[switchyard:planner] Plan the next step.');
    const plan = await planner.invoke([plannerSystem, new HumanMessage(question)]);
    count(plan);
    expect(plan.tool_calls).toEqual([
      expect.objectContaining({ name: 'calculator', args: { expression: '2+3*4' } }),
    ]);

    const toolResult = new ToolMessage({
      content: JSON.stringify({ expression: '2+3*4', value: 14 }),
      tool_call_id: plan.tool_calls?.[0].id ?? '',
    });
    const afterTool = await planner.invoke([plannerSystem, new HumanMessage(question), plan, toolResult]);
    count(afterTool);
    expect(afterTool.content).toBe('I have what I need.');
    expect(afterTool.tool_calls).toEqual([]);

    const reflection = await asksJson().invoke([
      new SystemMessage('[switchyard:reflection] Judge the step.'),
      new HumanMessage(question),
      plan,
      toolResult,
    ]);
    count(reflection);
    // {{json:tool_result}} keeps the reply valid JSON even though the tool result has quotes.
    expect(JSON.parse(reflection.content as string)).toEqual({
      conclusion: 'The tool result answers the step: {"expression":"2+3*4","value":14}',
      match: 'full',
      is_finished: true,
      is_sufficient: true,
    });

    const { chunks, full } = await collect(
      await model().stream([
        new SystemMessage('[switchyard:output] Answer the user.'),
        new HumanMessage(question),
        plan,
        toolResult,
      ]),
    );
    count(full);
    expect(chunks.filter((c) => c.content !== '').length).toBeGreaterThanOrEqual(4);
    expect(full.content).toBe('The answer is 14.');

    expect(total).toBe(
      ['intake', 'planner-calculate', 'planner-after-tool', 'reflection', 'output']
        .map(usageOf)
        .reduce((a, b) => a + b),
    );
    expect((await records()).map((r) => r.rule)).toEqual([
      'intake',
      'planner-calculate',
      'planner-after-tool',
      'reflection',
      'output',
    ]);
  });

  it('answers the planner directly when no calculation is asked, and escapes quotes in intake', async () => {
    llm.setScript(demo);
    const direct = await model()
      .bindTools([calculatorTool])
      .invoke([new SystemMessage('[switchyard:planner]'), new HumanMessage('tell me a joke')]);
    expect(direct.content).toBe('No tool needed.');
    expect(direct.tool_calls).toEqual([]);

    const intake = await asksJson().invoke([
      new SystemMessage('[switchyard:intake]'),
      new HumanMessage('say "hi"\nplease'),
    ]);
    expect(JSON.parse(intake.content as string).task_goal).toBe('say "hi"\nplease');
    // Asked in the prompt only, the strict demo answers prose around the JSON.
    const prompted = await model().invoke([new SystemMessage('[switchyard:intake]'), new HumanMessage('hi')]);
    expect(prompted.content).toMatch(/^Sure! Here is what you asked for: \{/);
    expect(() => JSON.parse(prompted.content as string)).toThrow();
  });
});

describe('native JSON and strict mode', () => {
  const script: Script = {
    rules: [{ name: 'verdict', reply: { content: '{"match": "full"}' } }],
  };
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(admin(path), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the three dialects' bodies, read as JSON
    return res.json() as Promise<any>;
  };
  const messages = [{ role: 'user', content: 'judge' }];
  const tool = { type: 'function', function: { name: 'verdict', parameters: { type: 'object' } } };

  it('answers a non-native request as before, or with prose when x-scripted-strict: 1', async () => {
    llm.setScript(script);
    const plain = await post('/v1/chat/completions', { model: 'm', messages });
    expect(plain.choices[0].message.content).toBe('{"match": "full"}');
    const strict = await post('/v1/chat/completions', { model: 'm', messages }, { 'x-scripted-strict': '1' });
    expect(strict.choices[0].message.content).toBe(
      'Sure! Here is what you asked for: {"match": "full"} Let me know if you need anything else.',
    );
    expect((await records()).map((r) => [r.native_json, r.strict])).toEqual([
      [null, false],
      [null, true],
    ]);
  });

  it('delivers JSON in the native shape: content for a response format, the forced tool call, tool_use', async () => {
    llm.setScript({ ...script, strict: true });
    const schema = { type: 'object', properties: { match: { type: 'string' } } };
    const formatted = await post('/v1/chat/completions', {
      model: 'm',
      messages,
      response_format: { type: 'json_schema', json_schema: { name: 'verdict', strict: true, schema } },
    });
    expect(formatted.choices[0].message.content).toBe('{"match": "full"}');
    const forced = await post('/v1/chat/completions', {
      model: 'm',
      messages,
      tools: [tool],
      tool_choice: { type: 'function', function: { name: 'verdict' } },
    });
    expect(forced.choices[0].message.content).toBeNull();
    expect(forced.choices[0].message.tool_calls[0].function).toEqual({
      name: 'verdict',
      arguments: '{"match":"full"}',
    });
    const anthropic = await post('/v1/messages', {
      model: 'm',
      max_tokens: 100,
      messages,
      tools: [{ name: 'verdict', input_schema: schema }],
      tool_choice: { type: 'tool', name: 'verdict' },
    });
    expect(anthropic.content).toEqual([
      expect.objectContaining({ type: 'tool_use', name: 'verdict', input: { match: 'full' } }),
    ]);
    const ollama = await post('/api/chat', { model: 'm', messages, stream: false, format: schema });
    expect(ollama.message.content).toBe('{"match": "full"}');
    // Strict, and not asked natively (x-scripted-strict: 0 turns it off for one request).
    const unasked = await post('/api/chat', { model: 'm', messages, stream: false });
    expect(unasked.message.content).toMatch(/^Sure! /);
    const off = await post(
      '/api/chat',
      { model: 'm', messages, stream: false },
      { 'x-scripted-strict': '0' },
    );
    expect(off.message.content).toBe('{"match": "full"}');
    expect((await records()).map((r) => [r.native_json, r.native_strict, r.strict])).toEqual([
      ['json_schema', true, true],
      ['tool', null, true],
      ['tool', null, true],
      ['format', null, true],
      [null, null, true],
      [null, null, false],
    ]);
    expect((await records())[0].native_schema).toEqual(schema);
  });
});

describe('CLI (src/main.ts)', () => {
  const demoRuleNames = (JSON.parse(readFileSync(DEMO_SCRIPT, 'utf8')) as Script).rules.map((r) => r.name);
  const run = (env: Record<string, string>) =>
    spawn(process.execPath, ['-r', '@swc-node/register', resolve(__dirname, '../src/main.ts')], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  const exitOf = (child: ReturnType<typeof run>): Promise<number | null> =>
    new Promise((done) => child.on('exit', (code) => done(code)));
  const stderrOf = (child: ReturnType<typeof run>): Promise<string> =>
    new Promise((done) => {
      let text = '';
      child.stderr?.on('data', (d: Buffer) => (text += d.toString()));
      child.stderr?.on('end', () => done(text));
    });

  it('refuses to start without SCRIPTED_LLM_SCRIPT or with an invalid script', async () => {
    const missing = run({});
    const [missingCode, missingErr] = await Promise.all([exitOf(missing), stderrOf(missing)]);
    expect(missingCode).toBe(1);
    expect(missingErr).toMatch(/SCRIPTED_LLM_SCRIPT is required/);

    const invalid = run({ SCRIPTED_LLM_SCRIPT: resolve(__dirname, '../scripts/missing.json') });
    const [invalidCode, invalidErr] = await Promise.all([exitOf(invalid), stderrOf(invalid)]);
    expect(invalidCode).toBe(1);
    expect(invalidErr).toMatch(/SCRIPTED_LLM_SCRIPT=.*missing\.json: cannot read the script file/);
  });

  it('reports zod issues of an invalid script file', async () => {
    const dir = mkdtempSync(resolve(tmpdir(), 'scripted-llm-'));
    const file = resolve(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ rules: [{ name: 'x', when: { lastrole: 'tool' } }] }));
    const child = run({ SCRIPTED_LLM_SCRIPT: file });
    const [code, err] = await Promise.all([exitOf(child), stderrOf(child)]).finally(() =>
      rmSync(dir, { recursive: true, force: true }),
    );
    expect(code).toBe(1);
    expect(err).toContain(`SCRIPTED_LLM_SCRIPT=${file}: invalid script:`);
    expect(err).toMatch(/rules\.0\.when: Unrecognized key: \\"lastrole\\"/);
    expect(err).toMatch(/rules\.0\.reply:/);
  });

  it('serves the demo script, logs a JSON line when listening, and exits cleanly on SIGTERM', async () => {
    const child = run({ SCRIPTED_LLM_SCRIPT: DEMO_SCRIPT, SCRIPTED_LLM_PORT: '0' });
    const exited = exitOf(child);
    const lines = createInterface({ input: child.stdout! });
    const listening = await new Promise<{ msg: string; url: string; rules: string[] }>((done, fail) => {
      lines.once('line', (line) => done(JSON.parse(line)));
      child.once('exit', () => fail(new Error('scripted-llm exited before listening')));
    });
    expect(listening).toMatchObject({
      msg: 'scripted-llm listening',
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/v1$/),
    });
    expect(listening.rules).toEqual(demoRuleNames);
    const models = (await (await fetch(`${listening.url}/models`)).json()) as { data: { id: string }[] };
    expect(models.data.map((m) => m.id)).toEqual(['scripted']);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
