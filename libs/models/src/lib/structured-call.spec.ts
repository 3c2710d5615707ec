import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import { z } from 'zod';
import type { DataSource } from 'typeorm';
import { ScriptedLlmProcess } from '@switchyard/testing';
import { type ChatModels, LlmCallException } from './chat-models';
import { modelsOn, openTestDatabase } from './registry-db.fixture';
import { invokeStructured } from './structured-call';

// Against the scripted model server over real HTTP, through the registry (real Postgres) and
// langchain's ChatOpenAI.

const Verdict = z.object({ answer: z.number() });
let llm: ScriptedLlmProcess;
let ds: DataSource;
let chatModels: ChatModels;

beforeAll(async () => {
  llm = await ScriptedLlmProcess.start({
    rules: [
      {
        name: 'bad-once',
        times: 1,
        when: { any_includes: '[flaky]' },
        reply: { content: 'not json at all' },
      },
      { name: 'good', when: { any_includes: '[flaky]' }, reply: { content: '{"answer": 42}' } },
      {
        name: 'fenced',
        when: { user_includes: '[fenced]' },
        reply: { content: '```json\n{"answer": 7}\n```' },
      },
      { name: 'always-bad', when: { any_includes: '[bad]' }, reply: { content: '{"answer": "forty-two"}' } },
      {
        name: 'rejected',
        when: { user_includes: '[401]' },
        reply: { status: 401, error_message: 'no such key' },
      },
    ],
  });
  ds = await openTestDatabase('switchyard_test_models_structured');
  chatModels = modelsOn(ds, llm.url, 'test');
}, 30_000);

afterAll(async () => {
  await llm?.stop();
  await ds?.destroy();
});

const models = () => chatModels;

async function callsFor(rulePrefix: string[]): Promise<number> {
  return (await llm.requests()).filter((r) => r.rule && rulePrefix.includes(r.rule)).length;
}

describe(invokeStructured.name, () => {
  it('retries an unparseable reply with the error fed back: success after exactly 2 calls', async () => {
    const result = await invokeStructured(
      models().chat(),
      [new SystemMessage('reply JSON'), new HumanMessage('[flaky]')],
      Verdict,
      {
        maxRetries: 5,
        label: 'test',
      },
    );
    expect(result.value).toEqual({ answer: 42 });
    expect(result.calls).toBe(2);
    expect(result.usages).toHaveLength(2);
    expect(await callsFor(['bad-once', 'good'])).toBe(2);
  });

  it('accepts a reply in a ```json fence', async () => {
    const result = await invokeStructured(models().chat(), [new HumanMessage('[fenced]')], Verdict, {
      maxRetries: 0,
      label: 'test',
    });
    expect(result.value).toEqual({ answer: 7 });
    expect(result.calls).toBe(1);
  });

  it('max_retries = 2 makes exactly 3 calls, then fails clearly and not retryably', async () => {
    const before = await callsFor(['always-bad']);
    const err = await invokeStructured(models().chat(), [new HumanMessage('[bad]')], Verdict, {
      maxRetries: 2,
      label: 'reflection',
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmCallException);
    expect((err as LlmCallException).retryable).toBe(false);
    expect((err as LlmCallException).code).toBe('unparseable_reply');
    expect((err as Error).message).toMatch(
      /^reflection: the model's reply did not parse after 3 calls: answer: /,
    );
    expect((await callsFor(['always-bad'])) - before).toBe(3);
  });

  // Last: the refused key is quarantined, and it is the only one.
  it('classifies an HTTP 401 from the server as not retryable', async () => {
    const err = await invokeStructured(models().chat(), [new HumanMessage('[401]')], Verdict, {
      maxRetries: 3,
      label: 'x',
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmCallException);
    expect((err as LlmCallException).retryable).toBe(false);
    expect((err as Error).message).toContain('HTTP 401');
    expect(await callsFor(['rejected'])).toBe(1);
  });
});
