import { join } from 'node:path';
import { type Browser, type Page, chromium } from 'playwright-core';
import { LONG_ANSWER, TestStack, slowLongAnswerScript } from '@switchyard/testing';

// A chat front end written for LangGraph Platform — `useStream` and `threads.search` of the
// official `@langchain/langgraph-sdk`, as LangChain's agent-chat-ui uses them — in a real browser
// (Debian's Chromium through playwright-core) against the real stack: the console's
// `#/langgraph` page, which knows nothing of Switchyard but the gateway's URL.

const SHOTS = join(__dirname, '../../../docs/console');
const CHROMIUM = process.env['CHROMIUM_PATH'] || '/usr/bin/chromium';

let stack: TestStack;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];
/** The LangGraph routes the page called, as `METHOD /path` (ids as `:id`). */
const calls: string[] = [];

const LONG = LONG_ANSWER;

beforeAll(async () => {
  // The long answer streamed slowly: a reload happens while it is being written.
  stack = await TestStack.start({ script: slowLongAnswerScript(100) });
  const agent = await stack.api('POST', '/v1/agents', { name: 'polite', system_prompt: 'Be polite.' });
  expect(agent.status).toBe(201);
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  page = await context.newPage();
  page.on('pageerror', (err) => pageErrors.push(err.message));
  page.on('request', (r) => {
    const path = new URL(r.url()).pathname;
    if (/^\/(threads|assistants|runs)\b/.test(path)) {
      calls.push(`${r.method()} ${path.replace(/[0-9a-f-]{36}/g, ':id')}`);
    }
  });
  await page.goto(`${stack.gatewayUrl}/console/#/langgraph`);
  await page.getByTestId('api-key').fill(stack.key);
  await page.getByTestId('sign-in').click();
  await page.getByTestId('lg-threads').waitFor();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

const messages = (type: string) =>
  page.locator(`[data-testid="lg-message"][data-type="${type}"]`).allTextContents();
const threadOf = () => /#\/langgraph\/([0-9a-f-]{36})$/.exec(page.url())![1];
/**
 * Opens a new conversation and waits until it is shown (the page clears the last one's messages
 * once the new route renders): what is typed before then goes with the last one's composer.
 */
async function newChat(): Promise<void> {
  await page.getByTestId('lg-new-chat').click();
  await page.waitForURL(/#\/langgraph$/);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="lg-message"]').length === 0);
}

/** Sends a message and waits for the answer: `n` AI messages, nothing loading. */
async function ask(text: string, n: number): Promise<void> {
  await page.getByTestId('lg-input').fill(text);
  await page.getByTestId('lg-send').click();
  await page.waitForFunction(
    (count) =>
      document.querySelectorAll('[data-testid="lg-message"][data-type="ai"]').length === count &&
      !document.querySelector('[data-testid="lg-stop"]'),
    n,
    { timeout: 60_000, polling: 100 },
  );
}

describe('a LangGraph chat front end (useStream, threads.search) in Chromium', () => {
  it('submits and streams the answer; the conversation is listed by threads.search', async () => {
    await ask('what is 6*7?', 1);
    await page.waitForURL(/#\/langgraph\/[0-9a-f-]{36}$/);
    const threadId = threadOf();
    expect(await messages('human')).toEqual(['what is 6*7?']);
    const [answer] = await messages('ai');
    expect(answer).toContain('42');
    // The list is threads.search's, newest first, titled by the first human message.
    await page.waitForSelector(
      `[data-testid="lg-thread"][data-thread="${threadId}"]:has-text("what is 6*7?")`,
    );
    expect(calls).toEqual(
      expect.arrayContaining(['POST /threads/search', 'POST /threads', 'POST /threads/:id/runs/stream']),
    );
    // The server holds what the page showed.
    const state = await stack.api('GET', `/threads/${threadId}/state`);
    expect((state.body.values.messages as { content: string }[]).map((m) => m.content)).toEqual([
      'what is 6*7?',
      answer,
    ]);
    await page.screenshot({ path: join(SHOTS, 'langgraph-chat.png') });
  });

  it('a new conversation with another assistant; the first one reopens from its history', async () => {
    const first = threadOf();
    await newChat();
    expect(await messages('human')).toEqual([]);
    const polite = (await stack.api('POST', '/assistants/search', { name: 'polite' })).body as {
      assistant_id: string;
    }[];
    await page.getByTestId('lg-assistant').selectOption(polite[0].assistant_id);
    await ask('hello there', 1);
    await page.waitForURL(/#\/langgraph\/[0-9a-f-]{36}$/);
    const second = threadOf();
    expect(second).not.toBe(first);
    const runs = (await stack.api('GET', `/threads/${second}/runs`)).body as { assistant_id: string }[];
    expect(runs.map((r) => r.assistant_id)).toEqual([polite[0].assistant_id]);
    // Both listed, the newest first.
    await page.waitForFunction(
      (ids) =>
        [...document.querySelectorAll('[data-testid="lg-thread"]')]
          .map((a) => a.getAttribute('data-thread'))
          .slice(0, 2)
          .join() === ids.join(),
      [second, first],
      { timeout: 15_000, polling: 100 },
    );

    // The first conversation, opened from the list: useStream reads its thread's history.
    await page.locator(`[data-testid="lg-thread"][data-thread="${first}"]`).click();
    await page.waitForURL(new RegExp(`#/langgraph/${first}$`));
    // (Not a count of messages: the conversation left behind has two as well until this one renders.)
    await page.waitForFunction(
      () =>
        [...document.querySelectorAll('[data-testid="lg-message"][data-type="human"]')]
          .map((e) => e.textContent)
          .join('|') === 'what is 6*7?',
      undefined,
      { timeout: 15_000, polling: 100 },
    );
    expect(await messages('human')).toEqual(['what is 6*7?']);
    // …and after a reload too; a follow-up goes on in the same thread.
    await page.reload();
    await page.getByTestId('lg-threads').waitFor();
    await page.waitForFunction(
      () => document.querySelectorAll('[data-testid="lg-message"]').length === 2,
      undefined,
      {
        timeout: 15_000,
        polling: 100,
      },
    );
    await ask('and 6*8?', 2);
    expect(threadOf()).toBe(first);
    expect(await messages('human')).toEqual(['what is 6*7?', 'and 6*8?']);
    expect(calls).toContain('POST /threads/:id/history');
    expect(pageErrors).toEqual([]);
  });

  it('a reload while the answer streams joins the run again; the answer completes once', async () => {
    await newChat();
    await page.getByTestId('lg-input').fill('[long-answer] tell me');
    await page.getByTestId('lg-send').click();
    await page.waitForFunction(
      () =>
        /word5/.test(document.querySelector('[data-testid="lg-message"][data-type="ai"]')?.textContent ?? ''),
      undefined,
      { timeout: 30_000, polling: 100 },
    );
    const threadId = threadOf();
    const partial = (await messages('ai'))[0];
    expect(partial).not.toBe(LONG);
    await page.reload();
    await page.getByTestId('lg-threads').waitFor();
    await page.waitForFunction(
      (answer) =>
        [...document.querySelectorAll('[data-testid="lg-message"][data-type="ai"]')]
          .map((m) => m.textContent)
          .join('|') === answer && !document.querySelector('[data-testid="lg-stop"]'),
      LONG,
      { timeout: 60_000, polling: 100 },
    );
    expect(threadOf()).toBe(threadId);
    expect(await messages('human')).toEqual(['[long-answer] tell me']);
    expect(calls).toContain('GET /threads/:id/runs/:id/stream');
  });
});
