import OpenAI from 'openai';
import { SwitchyardClient, TokenText } from '@switchyard/client';
import type { RunEvent } from '@switchyard/contracts';
import { TestStack } from '@switchyard/testing';

// A retried answer replaces the earlier attempt's tokens (never runs on after them): the output
// service is killed (kill -9) while it streams a 40-token answer; its task comes back to a new
// output service (ack wait 2 s), which streams the answer again as attempt 2.

const ANSWER = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');

let stack: TestStack;

beforeAll(async () => {
  stack = await TestStack.start({
    script: 'apps/gateway/test/fixtures/skeleton.script.json',
    env: { SWITCHYARD_ACK_WAIT_MS: '2000' },
  });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

/** Kills the output service (once) when `now` says so, and starts a new one. */
function killer() {
  let restarted: Promise<void> | undefined;
  return {
    kill: () => {
      if (!restarted) {
        stack.kill('output');
        restarted = stack.restart('output');
      }
    },
    done: () => restarted ?? Promise.resolve(),
  };
}

it('SSE: token events carry their attempt; the retry’s tokens replace the first attempt’s', async () => {
  const client = new SwitchyardClient({ baseUrl: stack.gatewayUrl, apiKey: stack.key });
  const run = await client.runs.create({ input: { prompt: '[long-answer] tell me' } });
  const k = killer();
  const tokens: RunEvent[] = [];
  const text = new TokenText();
  let starts = 0;
  for await (const e of client.events(run.run_id)) {
    if (e.event_type === 'node_started' && (e.payload as { node: string }).node === 'output') {
      starts++;
    }
    if (e.event_type === 'token') {
      tokens.push(e as RunEvent);
      if (tokens.length === 5) {
        k.kill();
      }
    }
    text.add(e as RunEvent);
  }
  await k.done();
  const attempts = tokens.map((t) => (t.payload as { attempt?: number }).attempt);
  expect(attempts.slice(0, 5)).toEqual([1, 1, 1, 1, 1]);
  expect(attempts.every((a) => typeof a === 'number' && a >= 1)).toBe(true);
  // The task was started twice (its node_started came again), and streamed twice.
  expect(starts).toBe(2);
  const final = await stack.ended(run.run_id);
  expect(final.status).toBe('succeeded');
  expect(final.output.answer).toBe(ANSWER);
  // Read by the rule, the tokens make the answer once; run together, they would not.
  expect(text.text).toBe(ANSWER);
  expect(tokens.map((t) => (t.payload as { text: string }).text).join('')).not.toBe(ANSWER);
}, 90_000);

it('OpenAI stream: the retry continues where the sent text ends — the client gets the answer once', async () => {
  const openai = new OpenAI({ apiKey: stack.key, baseURL: `${stack.gatewayUrl}/v1`, maxRetries: 0 });
  const stream = await openai.chat.completions.create({
    model: 'default',
    messages: [{ role: 'user', content: '[long-answer] tell me again' }],
    stream: true,
  });
  const k = killer();
  let content = '';
  let chunks = 0;
  for await (const c of stream) {
    const piece = c.choices[0]?.delta?.content ?? '';
    if (piece) {
      content += piece;
      if (++chunks === 5) {
        k.kill();
      }
    }
  }
  await k.done();
  expect(chunks).toBeGreaterThan(5);
  expect(content).toBe(ANSWER);
}, 90_000);
