import { join } from 'node:path';
import { type Browser, type Page, chromium } from 'playwright-core';
import { TestStack } from '@switchyard/testing';

// The console in a real browser (Debian's Chromium through playwright-core) against the real
// stack: sign in, start runs, watch actions arrive, open one, answer an ask_user, cancel a run,
// filter the list, compare two versions of the state, see a graph agent's taken path, and see
// nothing of another tenant. Screenshots of the main pages go to docs/console (the README's).

const ADMIN = 'console-admin-token';
const SHOTS = join(__dirname, '../../../docs/console');
// Debian's Chromium (tools/scripts/test.sh installs it), or CHROMIUM_PATH.
const CHROMIUM = process.env['CHROMIUM_PATH'] || '/usr/bin/chromium';

let stack: TestStack;
let browser: Browser;
let page: Page;
let other: { id: string; key: string };
const pageErrors: string[] = [];

beforeAll(async () => {
  stack = await TestStack.start({
    script: 'apps/gateway/test/fixtures/skeleton.script.json',
    env: { SWITCHYARD_ADMIN_TOKEN: ADMIN },
  });
  other = await stack.newTenant('console-other', ADMIN);
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  page = await browser.newPage({ viewport: { width: 1360, height: 1000 } });
  // The page's own errors go to the test log (the console's code must not throw).
  page.on('pageerror', (err) => pageErrors.push(err.message));
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

const byTest = (id: string) => page.getByTestId(id);

async function startRun(prompt: string, agent?: string): Promise<string> {
  await page.goto(`${stack.gatewayUrl}/console/#/`);
  // A fresh load: the agents created since are offered.
  await page.reload();
  if (agent) {
    await byTest('new-run-agent').selectOption(agent);
  }
  await byTest('new-run-prompt').fill(prompt);
  await byTest('new-run-start').click();
  await page.waitForURL(/#\/runs\/[0-9a-f-]{36}$/);
  return /#\/runs\/([0-9a-f-]{36})$/.exec(page.url())![1];
}

/** The attribute of every element the selector finds, in document order. */
async function attrs(selector: string, name: string): Promise<(string | null)[]> {
  const found = page.locator(selector);
  const out: (string | null)[] = [];
  for (let i = 0; i < (await found.count()); i++) {
    out.push(await found.nth(i).getAttribute(name));
  }
  return out;
}

/** Waits for the run page to show `status`; on a timeout, says what the API says of the run. */
async function statusIs(status: string): Promise<void> {
  try {
    await page.waitForSelector(`[data-testid="run-status"]:text-is("${status}")`, { timeout: 45_000 });
  } catch (err) {
    const runId = /#\/runs\/([0-9a-f-]{36})$/.exec(page.url())?.[1];
    const api = runId ? await stack.api('GET', `/v1/runs/${runId}`) : undefined;
    throw new Error(
      `the page did not show "${status}" (${(err as Error).message.split('\n')[0]}); ` +
        `it shows "${await byTest('run-status').textContent()}", the API says ${JSON.stringify(api?.body)}`,
    );
  }
}

describe('console', () => {
  it('serves the app at /console and refuses a wrong key at sign-in', async () => {
    const res = await fetch(`${stack.gatewayUrl}/console/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    await page.goto(`${stack.gatewayUrl}/console/`);
    await byTest('api-key').fill('sk-wrong');
    await byTest('sign-in').click();
    await byTest('sign-in-error').waitFor();
    expect(await byTest('sign-in-error').textContent()).toMatch(/key|unauthorized/i);
    await byTest('api-key').fill(stack.key);
    await byTest('sign-in').click();
    await byTest('runs').waitFor();
    // The key is in this tab's session storage only.
    expect(await page.evaluate('[sessionStorage.length, localStorage.length]')).toEqual([1, 0]);
  });

  it('starts a run and shows its actions as they arrive; an action opens to its result', async () => {
    const runId = await startRun('what is 2+3*4?');
    await statusIs('succeeded');
    await page.waitForSelector('[data-testid="answer"]:has-text("The answer is 14.")');
    const nodes = await attrs('[data-testid="action"]', 'data-node');
    expect(nodes).toEqual(expect.arrayContaining(['start', 'planner', 'calculator', 'reflection', 'output']));
    await page
      .locator('[data-testid="action"][data-node="calculator"] [data-testid="action-toggle"]')
      .click();
    const detail = await byTest('action-detail').textContent();
    expect(detail).toContain('"value": 14');
    expect(detail).toContain('2+3*4');
    // Token usage per node and model.
    expect(await byTest('usage').textContent()).toMatch(/node planner.*model/s);
    await page.screenshot({ path: join(SHOTS, 'run.png'), fullPage: true });

    // The state at two versions of the thread, and what changed between them.
    await byTest('diff').waitFor();
    const versions = await byTest('diff-from').locator('option').count();
    expect(versions).toBeGreaterThan(3);
    await byTest('diff-from').selectOption({ index: versions - 1 });
    await page.locator('[data-testid="diff-op"]').nth(3).waitFor({ timeout: 10_000 });
    const paths = await page.locator('[data-testid="diff-op"] td:nth-child(2)').allTextContents();
    expect(paths.some((p) => p.startsWith('/action_history'))).toBe(true);
    await byTest('state').screenshot({ path: join(SHOTS, 'state-diff.png') });

    // Rerun from the calculator's action: a fork of the thread there; the steps before it are reused.
    await page.locator('[data-testid="action"][data-node="calculator"] [data-testid="fork"]').click();
    await page.waitForURL((url) => /#\/runs\/[0-9a-f-]{36}$/.test(url.hash) && !url.hash.includes(runId));
    await statusIs('succeeded');
    await page.waitForSelector('[data-testid="answer"]:has-text("The answer is 14.")');
    // The answer's tokens may be shown before the output action's own event arrives.
    await page.waitForSelector('[data-testid="action"][data-node="output"]');
    const branch = await attrs('[data-testid="action"]', 'data-node');
    expect(branch[0]).toBe('fork');
    expect(branch).not.toContain('calculator');
    expect(branch).toEqual(expect.arrayContaining(['reflection', 'output']));
  });

  it('answers an ask_user with the form made from its input schema', async () => {
    await startRun('[ask] greet me');
    await statusIs('waiting');
    await byTest('ask-user').waitFor();
    expect(await byTest('question').textContent()).toBe('What is your name?');
    await page.screenshot({ path: join(SHOTS, 'ask-user.png'), fullPage: true });
    await byTest('field-name').fill('Ada');
    await byTest('answer-submit').click();
    await statusIs('succeeded');
    await page.waitForSelector('[data-testid="answer"]:has-text("Hello Ada!")');
  });

  it('cancels a running run, and the list filters by status', async () => {
    const runId = await startRun('[slow] take your time');
    await byTest('cancel').click();
    await statusIs('cancelled');
    await page.goto(`${stack.gatewayUrl}/console/#/`);
    await byTest('filter-status').selectOption('cancelled');
    await page.locator(`[data-testid="run-row"][data-run="${runId}"]`).waitFor({ timeout: 10_000 });
    await page
      .locator(`[data-testid="run-row"]:not([data-run="${runId}"])`)
      .first()
      .waitFor({ state: 'detached' });
    expect(await page.locator('[data-testid="run-row"]').count()).toBe(1);
    await byTest('filter-status').selectOption('');
    await page.locator('[data-testid="run-row"]').nth(2).waitFor();
    await page.screenshot({ path: join(SHOTS, 'runs.png'), fullPage: true });
  });

  it("draws a graph agent's canvas with the path the run took", async () => {
    const created = await stack.api('POST', '/v1/agents', {
      name: 'console-graph',
      kind: 'graph',
      dsl: {
        components: {
          begin: { obj: { component_name: 'Begin', params: {} }, downstream: ['Switch:S'], upstream: [] },
          'Switch:S': {
            obj: {
              component_name: 'Switch',
              params: {
                conditions: [
                  {
                    logical_operator: 'and',
                    items: [{ cpn_id: 'sys.query', operator: 'contains', value: 'yes' }],
                    to: ['Message:Yes'],
                  },
                ],
                end_cpn_ids: ['Message:No'],
              },
            },
            downstream: ['Message:Yes', 'Message:No'],
            upstream: ['begin'],
          },
          'Message:Yes': {
            obj: { component_name: 'Message', params: { content: ['yes!'] } },
            downstream: [],
            upstream: ['Switch:S'],
          },
          'Message:No': {
            obj: { component_name: 'Message', params: { content: ['no.'] } },
            downstream: [],
            upstream: ['Switch:S'],
          },
        },
      },
    });
    expect(created.status).toBe(201);
    await startRun('say yes', created.body.id as string);
    await statusIs('succeeded');
    await byTest('graph').waitFor();
    // The page reads the run's actions again when its stream says they changed: the status can
    // show `succeeded` a moment before the last read of the actions lands (an inline chain ends a
    // run within milliseconds). Wait for the path (three components taken), then read it all.
    await page.locator('[data-testid="graph-node"][data-taken="true"]').nth(2).waitFor();
    const graphNodes = page.locator('[data-testid="graph-node"]');
    const nodes: [string, string | null, string | null, string | null][] = [];
    for (let i = 0; i < (await graphNodes.count()); i++) {
      const node = graphNodes.nth(i);
      nodes.push([
        (await node.locator('text.label').allTextContents()).join(''),
        await node.getAttribute('data-taken'),
        // Where it runs, as drawn: contracts' INLINE_COMPONENTS run in the orchestrator's step.
        await node.getAttribute('data-runs'),
        /(inline|planner)$/.exec((await node.locator('text.runs-at').textContent()) ?? '')?.[1] ?? null,
      ]);
    }
    expect(nodes).toEqual(
      expect.arrayContaining([
        ['Beginbegin', 'true', 'inline', 'inline'],
        ['SwitchSwitch:S', 'true', 'inline', 'inline'],
        ['MessageMessage:Yes', 'true', 'planner', 'planner'],
        ['MessageMessage:No', 'false', 'planner', 'planner'],
      ]),
    );
    await byTest('graph').screenshot({ path: join(SHOTS, 'graph.png') });
  });

  it("shows nothing of another tenant's", async () => {
    await byTest('sign-out').click();
    await byTest('api-key').fill(other.key);
    await byTest('sign-in').click();
    await byTest('runs').waitFor();
    // Give the list a refresh to be sure it is the other tenant's (empty) list.
    await page.waitForTimeout(2500);
    expect(await page.locator('[data-testid="run-row"]').count()).toBe(0);
  });

  it('threw no errors in the page all along', () => {
    expect(pageErrors).toEqual([]);
  });
});
