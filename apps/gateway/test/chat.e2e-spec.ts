import { join } from 'node:path';
import { type Browser, type BrowserContext, type Page, chromium } from 'playwright-core';
import { LONG_ANSWER, TestStack, slowLongAnswerScript } from '@switchyard/testing';

// The end user's chat (seed 004) in a real browser (Debian's Chromium through playwright-core)
// against the real stack: the answer streams in typed out; a reload mid-stream, a dropped
// connection and a second tab on the same thread each end with the whole answer once — every
// text the page showed on the way is a beginning of it (nothing repeated, nothing missing). The
// active run is kept in localStorage as `active_run:<threadId>` and resumed after its last seq.

const SHOTS = join(__dirname, '../../../docs/console');
const CHROMIUM = process.env['CHROMIUM_PATH'] || '/usr/bin/chromium';
const LONG = LONG_ANSWER;

let stack: TestStack;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  // The long answer streamed slowly: a reload happens while it is being written.
  stack = await TestStack.start({ script: slowLongAnswerScript(150) });
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  // Every text the streamed answer shows, as the page shows it (kept per page load).
  await context.addInitScript(() => {
    const w = window as unknown as { __seen: string[] };
    w.__seen = [];
    const record = () => {
      const el = document.querySelector('[data-testid="streaming-text"]');
      const text = el?.textContent ?? null;
      if (text !== null && text !== '' && w.__seen[w.__seen.length - 1] !== text) {
        w.__seen.push(text);
      }
    };
    document.addEventListener('DOMContentLoaded', () => {
      new MutationObserver(record).observe(document.body, {
        subtree: true,
        childList: true,
        characterData: true,
      });
    });
  });
  page = await openTab();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

async function openTab(url = `${stack.gatewayUrl}/console/#/chat`): Promise<Page> {
  const tab = await context.newPage();
  tab.on('pageerror', (err) => pageErrors.push(err.message));
  await tab.goto(url);
  // The key lives in the tab's sessionStorage: each tab signs in.
  await tab.getByTestId('api-key').fill(stack.key);
  await tab.getByTestId('sign-in').click();
  await tab.getByTestId('chat-threads').waitFor();
  return tab;
}

const seen = (tab: Page) => tab.evaluate(() => (window as unknown as { __seen: string[] }).__seen);
const messages = (tab: Page, role: string) =>
  tab.locator(`[data-testid="message"][data-role="${role}"]`).allTextContents();
/**
 * Opens a new conversation and waits until it is shown: what is typed into the last one's composer
 * before it goes is lost with it.
 */
async function newChat(tab: Page): Promise<void> {
  await tab.getByTestId('new-chat').click();
  await tab.waitForURL(/#\/chat$/);
  await tab.waitForSelector('[data-testid="messages"]', { state: 'detached' });
}
const threadOf = (tab: Page) => /#\/chat\/([0-9a-f-]{36})$/.exec(tab.url())![1];
const kept = (tab: Page, threadId: string) =>
  tab.evaluate((k) => localStorage.getItem(k), `active_run:${threadId}`);

/** Waits until the streamed answer shows at least `words` words. */
const streamedWords = (tab: Page, words: number) =>
  tab.waitForFunction(
    (n) =>
      (document.querySelector('[data-testid="streaming-text"]')?.textContent ?? '').split(' ').length >= n,
    words,
    { timeout: 30_000, polling: 100 },
  );

/** Waits until the turn is over: `n` answers in the history and no answer streaming. */
async function answered(tab: Page, n: number): Promise<void> {
  await tab.waitForFunction(
    (count) =>
      document.querySelectorAll('[data-testid="message"][data-role="assistant"]').length === count &&
      !document.querySelector('[data-testid="streaming-answer"]'),
    n,
    { timeout: 60_000, polling: 100 },
  );
}

/** Every text shown on the way was a beginning of the answer, and the last was all of it. */
function expectTypedOnce(texts: string[], answer: string): void {
  expect(texts.length).toBeGreaterThan(1);
  for (const t of texts) {
    expect(answer.startsWith(t)).toBe(true);
  }
  expect(texts[texts.length - 1]).toBe(answer);
}

/** The `Last-Event-ID` of every events request the tab makes from now on. */
function resumes(tab: Page): (string | null)[] {
  const ids: (string | null)[] = [];
  tab.on('request', (r) => {
    if (/\/v1\/runs\/[0-9a-f-]{36}\/events$/.test(r.url())) {
      ids.push(r.headers()['last-event-id'] ?? null);
    }
  });
  return ids;
}

describe('chat', () => {
  it('streams the answer, and a reload mid-stream resumes after the last seq with nothing repeated', async () => {
    await page.getByTestId('chat-input').fill('[long-answer] what is 2+3*4?');
    await page.getByTestId('chat-send').click();
    await page.waitForURL(/#\/chat\/[0-9a-f-]{36}$/);
    const threadId = threadOf(page);
    await streamedWords(page, 6);
    const before = await seen(page);
    const snapshot = JSON.parse((await kept(page, threadId))!) as {
      prompt: string;
      transcript: { run_id: string; last_seq: string; ended: boolean };
    };
    expect(snapshot.prompt).toBe('[long-answer] what is 2+3*4?');
    expect(snapshot.transcript.last_seq).toMatch(/^\d+-\d+$/);
    expect(snapshot.transcript.ended).toBe(false);
    await page.screenshot({ path: join(SHOTS, 'chat.png') });

    const ids = resumes(page);
    await page.reload();
    await answered(page, 1);
    const after = await seen(page);
    expectTypedOnce([...before, ...after], LONG);
    // The reload showed what it had at once (no typing from the start), then went on.
    expect(after[0].split(' ').length).toBeGreaterThanOrEqual(before[before.length - 1].split(' ').length);
    // ...from the kept seq, not from the start.
    expect(ids[0]).not.toBeNull();
    expect(ids[0]! >= snapshot.transcript.last_seq).toBe(true);
    expect(await messages(page, 'user')).toEqual(['[long-answer] what is 2+3*4?']);
    expect(await messages(page, 'assistant')).toEqual([LONG]);
    expect(await kept(page, threadId)).toBeNull();
    // The first turn named the thread (the title model call), in the header and the list.
    await page.waitForSelector('[data-testid="chat-title"]:text-is("Conversation")');
    await page.waitForSelector(
      `[data-testid="chat-thread"][data-thread="${threadId}"]:has-text("Conversation")`,
    );
  });

  it('a dropped connection: the stream is picked up again and the answer completes once', async () => {
    const ids = resumes(page);
    await page.getByTestId('chat-input').fill('[long-answer] and again?');
    await page.getByTestId('chat-send').click();
    await streamedWords(page, 6);
    const opened = ids.length;
    // The gateway dies (kill -9): the page's connection breaks with no goodbye; it comes back.
    stack.kill('gateway');
    await stack.startService('gateway');
    await answered(page, 2);
    // The connection was cut and opened again after what the page had.
    expect(ids.length).toBeGreaterThan(opened);
    expect(ids.slice(opened).every((id) => id !== null)).toBe(true);
    expectTypedOnce(await seen(page), LONG);
    expect(await messages(page, 'assistant')).toEqual([LONG, LONG]);
    expect(await page.getByTestId('chat-stream-error').count()).toBe(0);
  });

  it('two tabs on one thread: the other tab follows the run it did not start', async () => {
    const threadId = threadOf(page);
    const second = await openTab(`${stack.gatewayUrl}/console/#/chat/${threadId}`);
    await second.waitForFunction(
      () => document.querySelectorAll('[data-testid="message"][data-role="assistant"]').length === 2,
      undefined,
      { polling: 100 },
    );
    await page.getByTestId('chat-input').fill('[long-answer] a third time?');
    await page.getByTestId('chat-send').click();
    await streamedWords(second, 4);
    await Promise.all([answered(page, 3), answered(second, 3)]);
    for (const tab of [page, second]) {
      expectTypedOnce(await seen(tab), LONG);
      expect(await messages(tab, 'assistant')).toEqual([LONG, LONG, LONG]);
      expect(await messages(tab, 'user')).toEqual([
        '[long-answer] what is 2+3*4?',
        '[long-answer] and again?',
        '[long-answer] a third time?',
      ]);
    }
    await second.close();
  });

  it('asks the user inline and answers; a stopped run says so', async () => {
    await newChat(page);
    await page.getByTestId('chat-input').fill('[ask] greet me');
    await page.getByTestId('chat-send').click();
    await page.getByTestId('ask-user').waitFor();
    expect(await page.getByTestId('question').textContent()).toBe('What is your name?');
    await page.getByTestId('field-name').fill('Ada');
    await page.getByTestId('answer-submit').click();
    await answered(page, 1);
    expect(await messages(page, 'assistant')).toEqual(['Hello Ada!']);

    await page.getByTestId('chat-input').fill('[slow] take your time');
    await page.getByTestId('chat-send').click();
    await page.getByTestId('chat-cancel').click();
    await page.waitForSelector('[data-testid="chat-note"]:text-is("The run was stopped")');
    expect(await page.getByTestId('streaming-answer').count()).toBe(0);
    const runs = await stack.api('GET', `/v1/threads/${threadOf(page)}/runs`);
    expect(runs.body.runs.map((r: { status: string }) => r.status).sort()).toEqual([
      'cancelled',
      'succeeded',
    ]);
  });

  it('attaches a file: uploaded at once, read by the run that the message starts', async () => {
    await newChat(page);
    const notes = '# Field notes\n\nThe hangar door sticks in the cold.\n';
    await page.getByTestId('chat-attach').setInputFiles({
      name: 'notes.md',
      mimeType: 'text/markdown',
      buffer: Buffer.from(notes),
    });
    await page.waitForSelector('[data-testid="chat-attachment"]:has-text("notes.md")');
    await page.getByTestId('chat-input').fill('what is 2+3*4?');
    await page.getByTestId('chat-send').click();
    await page.waitForURL(/#\/chat\/[0-9a-f-]{36}$/);
    await answered(page, 1);
    expect(await page.getByTestId('chat-attachment').count()).toBe(0);
    const state = await stack.api('GET', `/v1/threads/${threadOf(page)}/state`);
    expect(state.body.origin_files).toEqual([
      { name: 'notes.md', type: 'text/markdown', file_id: expect.stringMatching(/^[0-9a-f-]{36}$/) },
    ]);
    expect(state.body.preprocessed_files.documents['notes.md']).toMatchObject({ text: notes });
  });

  it('threw no errors in the page all along', () => {
    expect(pageErrors).toEqual([]);
  });
});
