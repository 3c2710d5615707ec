import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { DataSource } from 'typeorm';
import { z } from 'zod';
import { ScriptedLlmProcess, type ScriptedRequest } from '@switchyard/testing';
import type { ChatModels } from './chat-models';
import { LlmCallException } from './llm-errors';
import { addKey, box, modelsOn, openTestDatabase } from './registry-db.fixture';
import { invokeStructured } from './structured-call';

// Structured replies through each vendor's native mechanism, against the scripted model server in
// strict mode (a JSON reply only for a request that asked for JSON natively; prose otherwise), over
// real HTTP and a real registry. What was asked is read from the server's own request log.
jest.setTimeout(30_000);

const Answer = z.object({ answer: z.number(), note: z.string().optional() });
const rules = [
  {
    name: 'retry',
    when: { user_includes: 'attempt 1 of 3' },
    reply: { content: '{"answer": 2, "note": null}' },
  },
  { name: 'wrong-type', when: { user_includes: '[wrong]' }, reply: { content: '{"answer": "two"}' } },
  { name: 'answer', reply: { content: '{"answer": 42, "note": null}' } },
];
const strictScript = { strict: true, rules };

let llm: ScriptedLlmProcess;
let ds: DataSource;
let models: ChatModels;
const vendors: Record<string, string> = {};

beforeAll(async () => {
  llm = await ScriptedLlmProcess.start(strictScript);
  ds = await openTestDatabase('switchyard_test_models_native');
  models = modelsOn(ds, llm.url, 'k-env');
  await models.router.store.ensureSeeded();
  const root = llm.url.replace(/\/v1$/, '');
  for (const kind of ['anthropic', 'ollama'] as const) {
    const [v] = (await ds.query(
      `INSERT INTO vendors (name, kind, base_url) VALUES ($1, $1, $2) RETURNING id`,
      [kind, root],
    )) as { id: string }[];
    vendors[kind] = v.id;
    await ds.query(
      `INSERT INTO vendor_keys (vendor_id, label, secret_sealed, fingerprint) VALUES ($1, $2, $3, $4)`,
      [v.id, kind, box.seal(`k-${kind}`), `fp-${kind}`],
    );
  }
  const [d] = (await ds.query(`SELECT id FROM vendors WHERE name = 'default'`)) as { id: string }[];
  vendors['openai'] = d.id;
  await addKey(ds, 'k-openai-2');
}, 30_000);

afterAll(async () => {
  await llm?.stop();
  await ds?.destroy();
});

/** The env model ("scripted") served by the vendor of `kind`, declaring `mode` (null: the kind's default). */
async function serve(kind: 'openai' | 'anthropic' | 'ollama', mode: string | null): Promise<void> {
  await ds.query(`UPDATE models SET vendor_id = $1, structured_output = $2 WHERE name = 'scripted'`, [
    vendors[kind],
    mode,
  ]);
}

async function ask(prompt: string) {
  const before = (await llm.requests()).length;
  const result = await invokeStructured(
    models.chat(),
    [new SystemMessage('[switchyard:test] Say the answer.'), new HumanMessage(prompt)],
    Answer,
    { maxRetries: 2, label: 'answer', promptShape: '{"answer": <a number>}' },
  ).catch((e: unknown) => e);
  const requests: ScriptedRequest[] = (await llm.requests()).slice(before);
  return { result, requests };
}

describe('structured calls through the native mechanism (strict scripted server)', () => {
  afterEach(() => llm.setScript(strictScript));

  it.each([
    ['openai', null, '/v1/chat/completions', 'json_schema'],
    ['openai', 'json_schema', '/v1/chat/completions', 'json_schema'],
    ['openai', 'tool_call', '/v1/chat/completions', 'tool'],
    ['anthropic', null, '/v1/messages', 'tool'],
    ['anthropic', 'json_schema', '/v1/messages', 'output_format'],
    ['ollama', null, '/api/chat', 'format'],
    ['ollama', 'tool_call', '/api/chat', 'format'],
  ] as const)(
    '%s declaring %s: asked natively (%s, %s), no JSON asked for in the prompt',
    async (kind, mode, path, via) => {
      await serve(kind, mode);
      const { result, requests } = await ask('what is the answer?');
      expect(result).toMatchObject({ value: { answer: 42 }, calls: 1 });
      // Strict mode's null for the optional `note` is gone before validation.
      expect((result as { value: object }).value).toEqual({ answer: 42 });
      expect(requests).toHaveLength(1);
      expect(requests[0]).toMatchObject({ path, native_json: via, strict: true, rule: 'answer' });
      expect(requests[0].system).toContain('[switchyard:test]');
      expect(requests[0].system).not.toMatch(/json/i);
      // The schema derived from the zod schema went out; OpenAI's in its strict form.
      expect(requests[0].native_schema).toMatchObject({
        type: 'object',
        properties: { answer: { type: 'number' } },
      });
      if (kind === 'openai') {
        expect(requests[0]).toMatchObject({
          native_strict: true,
          native_schema: {
            required: ['answer', 'note'],
            additionalProperties: false,
            properties: { note: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
          },
        });
      }
    },
  );

  it("sends the registry's parser schema for the role as the native schema", async () => {
    await serve('anthropic', null);
    const schema = {
      type: 'object',
      properties: { answer: { type: 'number', minimum: 40 } },
      required: ['answer'],
    };
    await ds.query(`UPDATE models SET parser = $1 WHERE name = 'scripted'`, [
      JSON.stringify({ '*': { schema, max_retries: 0 } }),
    ]);
    try {
      const { result, requests } = await ask('what is the answer?');
      expect(result).toMatchObject({ value: { answer: 42 }, calls: 1 });
      expect(requests[0]).toMatchObject({ native_json: 'tool', native_schema: schema });
    } finally {
      await ds.query(`UPDATE models SET parser = NULL WHERE name = 'scripted'`);
    }
  });

  it('feeds a reply that fails validation back with the attempt count, natively', async () => {
    await serve('openai', null);
    const { result, requests } = await ask('[wrong]');
    expect(result).toMatchObject({ value: { answer: 2 }, calls: 2 });
    expect(requests.map((r) => [r.rule, r.native_json])).toEqual([
      ['wrong-type', 'json_schema'],
      ['retry', 'json_schema'],
    ]);
  });

  it('a model declaring `prompt` gets prose from a strict server and fails clearly', async () => {
    await serve('openai', 'prompt');
    const { result, requests } = await ask('what is the answer?');
    expect(result).toBeInstanceOf(LlmCallException);
    expect(result).toMatchObject({ code: 'unparseable_reply', retryable: false });
    expect(requests).toHaveLength(3);
    expect(requests.every((r) => r.native_json === null)).toBe(true);
  });

  it('a model declaring `prompt` works through prompt-JSON with a non-strict script', async () => {
    await llm.setScript({ ...strictScript, strict: false });
    await serve('openai', 'prompt');
    const { result, requests } = await ask('what is the answer?');
    expect(result).toMatchObject({ value: { answer: 42 }, calls: 1 });
    expect(requests[0]).toMatchObject({ native_json: null, strict: false });
    expect(requests[0].system).toContain(
      'Reply with one JSON object and nothing else: {"answer": <a number>}',
    );
  });
});
