import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { componentIdOfNode } from '@switchyard/contracts';
import { ProviderStandIn, TestStack, waitFor, yahooTimeseries } from '@switchyard/testing';
import {
  type GoldenEvent,
  type GoldenScript,
  canvas,
  expectGoldenPrompts,
  putScript,
  ragflowEventsOf,
  reduceRagflow,
  scriptGoldenReplies,
} from './graph-fixtures';

// Graph components that leave the process, end to end: Invoke, TavilySearch and YahooFinance
// reach local servers standing in for the providers (allowed explicitly: the address guard
// refuses loopback otherwise), with the tenant's sealed provider keys set through the admin API;
// DataOperations/ListOperations on all.json's data_ops branch against RAGFlow's goldens; the
// exception policy (goto, default value) and a component's time budget.

const FIXTURES = join(__dirname, '../../../libs/graph/fixtures');
const ADMIN = 'providers-admin-token';

interface Golden {
  inputs: { turns: { query: string; resume?: Record<string, unknown> }[] };
  answer: string;
  path: string[];
  error: { message: string; components?: string[] } | null;
  provider_calls?: { yfinance: string[]; tavily: string[] };
}
const golden = (name: string): Golden =>
  JSON.parse(readFileSync(join(FIXTURES, 'expected', `${name}.json`), 'utf8')) as Golden;
const fixture = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(FIXTURES, 'ragflow', name), 'utf8')) as Record<string, unknown>;

let stack: TestStack;
let provider: ProviderStandIn;
let tenant: { id: string; key: string };
const admin = { Authorization: `Bearer ${ADMIN}` };

beforeAll(async () => {
  provider = await new ProviderStandIn()
    .on('GET', '/echo', (req) => ({ text: `echo ${req.query['q']} (${req.headers['x-token']})` }))
    .on('POST', '/search', (req) =>
      req.headers['authorization'] === 'Bearer tvly-rotated'
        ? {
            json: {
              results: [
                { title: 'Apple Inc.', url: 'https://q.example/aapl', content: 'AAPL is Apple.', score: 0.9 },
              ],
            },
          }
        : { status: 401, json: { detail: { error: 'Unauthorized: missing or invalid API key.' } } },
    )
    .on('GET', '/ws/fundamentals-timeseries/v1/finance/timeseries/AAPL', (req) => ({
      json: yahooTimeseries(
        req.query['type']?.startsWith('annual')
          ? {
              // The canned balance sheet of the stock_market_research_assistant golden.
              annualTotalAssets: { '2024-09-30': 364980000000 },
              annualTotalDebt: { '2024-09-30': 106629000000 },
              annualWorkingCapital: { '2024-09-30': 23405000000 },
              annualOrdinarySharesNumber: { '2024-09-30': 15116786000 },
            }
          : { quarterlyTotalAssets: { '2024-12-31': 344085000000 } },
      ),
    }))
    .on('GET', '/ws/fundamentals-timeseries/v1/finance/timeseries/SLOW', { delayMs: 8_000, json: {} })
    .start();
  stack = await TestStack.start({
    script: 'apps/planner/test/fixtures/graph.script.json',
    env: {
      SWITCHYARD_ADMIN_TOKEN: ADMIN,
      SWITCHYARD_TAVILY_BASE_URL: provider.url,
      SWITCHYARD_YAHOO_FINANCE_BASE_URL: provider.url,
      SWITCHYARD_PROVIDER_ALLOW_HOSTS: '127.0.0.1',
      SWITCHYARD_INVOKE_ALLOW_HOSTS: '127.0.0.1',
      // YahooFinance's class budget (60 s in the table) lowered by its own variable.
      SWITCHYARD_GRAPH_TIMEOUT_YAHOOFINANCE_MS: '2000',
    },
  });
  tenant = await stack.newTenant('graph-providers', ADMIN);
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await provider?.stop();
});

const asTenant = () => ({ Authorization: `Bearer ${tenant.key}` });

const saveAgent = (name: string, dsl: Record<string, unknown>) =>
  stack.api('POST', '/v1/agents', { name, kind: 'graph', dsl }, asTenant());

async function createAgent(name: string, dsl: Record<string, unknown>): Promise<string> {
  const res = await saveAgent(name, dsl);
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function runToEnd(agentId: string, prompt: string) {
  const res = await stack.api('POST', '/v1/runs', { agent_id: agentId, input: { prompt } }, asTenant());
  expect(res.status).toBe(202);
  const runId = res.body.run_id as string;
  const status = async () => (await stack.api('GET', `/v1/runs/${runId}`, undefined, asTenant())).body;
  await waitFor(
    'the run to end',
    async () => ['succeeded', 'failed'].includes((await status()).status),
    60_000,
  );
  const actions = (await stack.api('GET', `/v1/runs/${runId}/actions`, undefined, asTenant())).body
    .actions as {
    node: string;
    result: { outputs?: Record<string, unknown>; exception_goto?: string[] };
  }[];
  const graphActions = actions.filter((a) => componentIdOfNode(a.node) !== undefined);
  return {
    runId,
    run: await status(),
    path: graphActions.map((a) => componentIdOfNode(a.node)!),
    outputs: Object.fromEntries(
      graphActions.map((a) => [componentIdOfNode(a.node)!, a.result.outputs ?? {}]),
    ),
  };
}

describe("an LLM's max_retries and delay_after_error (RAGFlow's retry, as an absolute count)", () => {
  const llmCanvas = () =>
    canvas({
      'LLM:Ask': {
        name: 'LLM',
        params: {
          llm_id: 'scripted',
          sys_prompt: 'Answer.',
          prompts: [{ role: 'user', content: '{sys.query}' }],
          max_retries: 2,
          delay_after_error: 0.3,
        },
        downstream: ['Message:Show'],
      },
      'Message:Show': { name: 'Message', params: { content: ['{LLM:Ask@content}'] } },
    });
  const failing = (times: number) => [
    { name: 'down', times, when: { system_includes: 'Answer.' }, reply: { status: 503 } },
    { name: 'up', times: 1, when: { system_includes: 'Answer.' }, reply: { content: 'fine now' } },
  ];
  const calls = async () =>
    ((await (await fetch(`${stack.llmUrl}/_requests`)).json()) as { rule: string }[]).map((r) => r.rule);

  it('a model that fails twice: the third call answers, delay_after_error apart', async () => {
    await stack.putScript({ strict: true, models: ['scripted'], rules: failing(2) });
    const agent = await createAgent('llm-retry-ok', llmCanvas());
    const started = Date.now();
    const r = await runToEnd(agent, 'hello?');
    expect(r.run.error).toBeNull();
    expect(r.run.output.answer).toBe('fine now');
    expect(await calls()).toEqual(['down', 'down', 'up']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(600);
  });

  it('a model that fails three times: exactly three calls, then the component fails naming the count', async () => {
    await stack.putScript({ strict: true, models: ['scripted'], rules: failing(3) });
    const agent = await createAgent('llm-retry-fail', llmCanvas());
    const r = await runToEnd(agent, 'hello?');
    expect(r.run.status).toBe('failed');
    expect(r.run.error.message).toContain('component LLM:Ask');
    expect(r.run.error.message).toContain('3 calls: max_retries 2');
    // No redelivery of the task multiplies the count.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await calls()).toEqual(['down', 'down', 'down']);
  });

  it('refuses on save a max_retries that is not a non-negative integer', async () => {
    const bad = llmCanvas() as { components: Record<string, { obj: { params: Record<string, unknown> } }> };
    bad.components['LLM:Ask'].obj.params['max_retries'] = -1;
    const res = await saveAgent('llm-retry-bad', bad);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('max_retries must be a non-negative integer');
  });
});

describe('graph providers: components that call out', () => {
  it('admin API: a provider key is sealed, listed by fingerprint only, rotated and revoked', async () => {
    const set = await stack.api(
      'PUT',
      `/v1/admin/tenants/${tenant.id}/provider-keys/tavily`,
      { secret: 'tvly-first' },
      admin,
    );
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ provider: 'tavily', status: 'active', replaced: [] });
    const rotated = await stack.api(
      'PUT',
      `/v1/admin/tenants/${tenant.id}/provider-keys/tavily`,
      { secret: 'tvly-rotated' },
      admin,
    );
    expect(rotated.body.replaced).toEqual([set.body.id]);
    const list = await stack.api('GET', `/v1/admin/tenants/${tenant.id}/provider-keys`, undefined, admin);
    expect(list.body.keys.map((k: { status: string }) => k.status)).toEqual(['revoked', 'active']);
    expect(JSON.stringify(list.body)).not.toContain('tvly-');
    const rows = await stack.sql<{ secret_sealed: string }>(
      'SELECT secret_sealed FROM provider_keys WHERE tenant_id = $1',
      [tenant.id],
    );
    expect(rows.every((r) => r.secret_sealed.startsWith('v1:') && !r.secret_sealed.includes('tvly'))).toBe(
      true,
    );
    expect(
      (await stack.api('PUT', `/v1/admin/tenants/${tenant.id}/provider-keys/bing`, { secret: 'x' }, admin))
        .status,
    ).toBe(400);
    expect((await stack.api('GET', `/v1/admin/tenants/${tenant.id}/provider-keys`)).status).toBe(401);
  });

  it("TavilySearch: the component searches with the tenant's rotated key; a revoked key fails the run naming it", async () => {
    const dsl = canvas({
      'TavilySearch:Find': {
        name: 'TavilySearch',
        params: { query: 'sys.query', max_results: 5, days: 7, api_key: '' },
        downstream: ['Message:Show'],
      },
      'Message:Show': { name: 'Message', params: { content: ['{TavilySearch:Find@formalized_content}'] } },
    });
    const agent = await createAgent('tavily', dsl);
    const r = await runToEnd(agent, 'apple stock code');
    expect(r.run.error).toBeNull();
    expect(r.run.output.answer).toContain(
      '├── Title: Apple Inc.\n├── URL: https://q.example/aapl\n└── Content:\nAAPL is Apple.',
    );
    const sent = provider.requests.filter((q) => q.path === '/search').at(-1)!;
    expect(sent.headers['authorization']).toBe('Bearer tvly-rotated');
    expect(JSON.parse(sent.body)).toMatchObject({ query: 'apple stock code', max_results: 5, days: 7 });

    expect(
      (await stack.api('DELETE', `/v1/admin/tenants/${tenant.id}/provider-keys/tavily`, undefined, admin))
        .status,
    ).toBe(200);
    const after = await runToEnd(agent, 'apple stock code');
    expect(after.run.status).toBe('failed');
    expect(after.run.error.message).toContain(
      'component TavilySearch:Find: Tavily: the tenant has no Tavily API key',
    );
  });

  it('TavilySearch as an Agent tool: the model calls tavily_search_0, the search runs with the tenant key, the answer uses it', async () => {
    const set = await stack.api(
      'PUT',
      `/v1/admin/tenants/${tenant.id}/provider-keys/tavily`,
      { secret: 'tvly-rotated' },
      admin,
    );
    expect(set.status).toBe(200);
    const rules = [
      {
        name: 'call-tavily',
        times: 1,
        when: { tools_include: 'tavily_search_0', last_role: 'user' },
        reply: { tool_calls: [{ name: 'tavily_search_0', arguments: { query: 'apple stock code' } }] },
      },
      {
        name: 'answer',
        times: 1,
        when: { last_role: 'tool', any_includes: 'AAPL is Apple.' },
        reply: { content: 'AAPL' },
      },
    ];
    const scripted = await fetch(`${stack.llmUrl}/_script`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ strict: true, models: ['scripted'], rules }),
    });
    expect(scripted.status).toBe(200);
    const agent = await createAgent(
      'agent-tavily',
      canvas({
        'Agent:Extract': {
          name: 'Agent',
          params: {
            llm_id: 'scripted',
            sys_prompt: 'Return the stock code only.',
            prompts: [{ role: 'user', content: '{sys.query}' }],
            tools: [
              { component_name: 'TavilySearch', name: 'TavilySearch', params: { max_results: 5, days: 7 } },
            ],
          },
          downstream: ['Message:Show'],
        },
        'Message:Show': { name: 'Message', params: { content: ['{Agent:Extract@content}'] } },
      }),
    );
    const before = provider.requests.filter((q) => q.path === '/search').length;
    const r = await runToEnd(agent, 'Which is the stock code of Apple?');
    expect(r.run.error).toBeNull();
    expect(r.run.output.answer).toMatch(/AAPL$/);
    const searches = provider.requests.filter((q) => q.path === '/search').slice(before);
    expect(searches).toHaveLength(1);
    expect(searches[0].headers['authorization']).toBe('Bearer tvly-rotated');
    expect(JSON.parse(searches[0].body)).toMatchObject({
      query: 'apple stock code',
      max_results: 5,
      days: 7,
    });
  });

  it("Switchyard's catalogue tools in an Agent: calculator_0 and http_get_1 run in the tool-executor under its guards, their answers reach the model", async () => {
    const rules = [
      {
        name: 'call-catalogue',
        times: 1,
        when: { tools_include: 'http_get_1', last_role: 'user' },
        reply: {
          tool_calls: [
            { name: 'calculator_0', arguments: { expression: '6 * 7' } },
            // Loopback: the address guard refuses it (no SWITCHYARD_HTTP_ALLOW_HOSTS here).
            { name: 'http_get_1', arguments: { url: `${provider.url}/search` } },
            { name: 'calculator_0', arguments: { expr: '1' } },
            { name: 'calculator_0', arguments: { expression: '1 +' } },
          ],
        },
      },
      {
        name: 'answer',
        times: 1,
        when: { last_role: 'tool' },
        reply: {
          content:
            'calc={{echo:"value":(\\d+)}}; http={{echo:(forbidden_address)}}; bad={{echo:(invalid_tool_input)}}; syntax={{echo:(syntax_error)}}',
        },
      },
    ];
    const scripted = await fetch(`${stack.llmUrl}/_script`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ strict: true, models: ['scripted'], rules }),
    });
    expect(scripted.status).toBe(200);
    const before = provider.requests.length;
    const agent = await createAgent(
      'agent-catalogue',
      canvas({
        'Agent:Calc': {
          name: 'Agent',
          params: {
            llm_id: 'scripted',
            sys_prompt: 'Use the tools.',
            prompts: [{ role: 'user', content: '{sys.query}' }],
            tools: [
              { component_name: 'calculator', name: 'calculator', params: {} },
              { component_name: 'http_get', name: 'http_get', params: {} },
            ],
          },
          downstream: ['Message:Show'],
        },
        'Message:Show': { name: 'Message', params: { content: ['{Agent:Calc@content}'] } },
      }),
    );
    const r = await runToEnd(agent, 'What is 6 * 7?');
    expect(r.run.error).toBeNull();
    // The calculator's result, the guard's refusal, the bad arguments and the bad expression each reached the model.
    expect(r.run.output.answer).toMatch(
      /<think>Running the http_get_1 tool\.\.\.<\/think>.*calc=42; http=forbidden_address; bad=invalid_tool_input; syntax=syntax_error$/,
    );
    // The refused URL was never fetched.
    expect(provider.requests.length).toBe(before);
  });

  it('an Agent tool that is neither a component nor a catalogue tool fails the Agent naming what is available', async () => {
    const agent = await createAgent(
      'agent-unknown-tool',
      canvas({
        'Agent:X': {
          name: 'Agent',
          params: {
            llm_id: 'scripted',
            sys_prompt: 'x',
            tools: [{ component_name: 'teleport', name: 'teleport', params: {} }],
          },
          downstream: ['Message:Show'],
        },
        'Message:Show': { name: 'Message', params: { content: ['{Agent:X@content}'] } },
      }),
    );
    const r = await runToEnd(agent, 'go');
    expect(r.run.status).toBe('failed');
    expect(r.run.error.message).toContain('tool 0 is a teleport component');
    expect(r.run.error.message).toMatch(/available: .*calculator.*http_get/);
  });

  it("YahooFinance:QuickAdsDig of stock_market_research_assistant.json reports the balance sheet of the golden's symbol", async () => {
    const g = golden('stock_market_research_assistant.aapl');
    const template = fixture('stock_market_research_assistant.json') as {
      dsl: { components: Record<string, { obj: { params: Record<string, unknown> } }> };
    };
    const params = template.dsl.components['YahooFinance:QuickAdsDig'].obj.params;
    const agent = await createAgent(
      'yahoo',
      canvas({
        'YahooFinance:QuickAdsDig': { name: 'YahooFinance', params, downstream: ['Message:Report'] },
        'Message:Report': { name: 'Message', params: { content: ['{YahooFinance:QuickAdsDig@report}'] } },
      }),
    );
    const before = provider.requests.length;
    const r = await runToEnd(agent, g.provider_calls!.yfinance[0]);
    expect(r.run.error).toBeNull();
    expect(r.path).toEqual(['begin', 'YahooFinance:QuickAdsDig', 'Message:Report']);
    // The sections the template asks for (balance sheets), and the symbol RAGFlow's run asked for.
    expect(r.run.output.answer).toMatch(/# Balance sheet:\n\| +\| +2024-09-30 00:00:00 \|/);
    expect(r.run.output.answer).toMatch(/\| Total Assets +\| +364980000000 \|/);
    expect(r.run.output.answer).toContain('# Quarterly balance sheet:');
    const symbols = provider.requests.slice(before).map((q) => q.query['symbol']);
    expect(new Set(symbols)).toEqual(new Set(g.provider_calls!.yfinance));
  });

  it('exception policy goto: a failed YahooFinance goes on at exception_goto, its _ERROR readable there', async () => {
    const agent = await createAgent(
      'yahoo-goto',
      canvas({
        'YahooFinance:Fetch': {
          name: 'YahooFinance',
          params: {
            stock_code: 'sys.query',
            info: true,
            news: false,
            exception_method: 'goto',
            exception_goto: ['Message:Sorry'],
          },
          downstream: ['Message:Report'],
        },
        'Message:Report': { name: 'Message', params: { content: ['{YahooFinance:Fetch@report}'] } },
        'Message:Sorry': { name: 'Message', params: { content: ['no data: {YahooFinance:Fetch@_ERROR}'] } },
      }),
    );
    const r = await runToEnd(agent, 'NOPE');
    expect(r.run.status).toBe('succeeded');
    expect(r.path).toEqual(['begin', 'YahooFinance:Fetch', 'Message:Sorry']);
    // (RAGFlow's reference pattern takes the space before a reference with it.)
    expect(r.run.output.answer).toMatch(/^no data:YahooFinance answered 404/);
  });

  it('Invoke: a GET to a local server with args and header placeholders; its result feeds a Message', async () => {
    const agent = await createAgent(
      'invoke',
      canvas({
        'Invoke:Call': {
          name: 'Invoke',
          params: {
            url: `127.0.0.1:${provider.port}/echo`,
            method: 'get',
            variables: [{ key: 'q', ref: 'sys.query' }],
            headers: '{"X-Token": "t-{sys.query}"}',
            timeout: 10,
          },
          downstream: ['Message:Show'],
        },
        'Message:Show': { name: 'Message', params: { content: ['got: {Invoke:Call@result}'] } },
      }),
    );
    const r = await runToEnd(agent, 'ping');
    expect(r.run.error).toBeNull();
    expect(r.run.output.answer).toBe('got:echo ping (t-ping)');
  });

  it('Invoke: a host not allowed is refused by the address guard with a clear error, and never reached', async () => {
    const before = provider.requests.length;
    const agent = await createAgent(
      'invoke-refused',
      canvas({
        'Invoke:Call': {
          name: 'Invoke',
          params: { url: `http://127.0.0.2:${provider.port}/echo`, method: 'get' },
          downstream: ['Message:Show'],
        },
        'Message:Show': { name: 'Message', params: { content: ['{Invoke:Call@result}'] } },
      }),
    );
    const r = await runToEnd(agent, 'ping');
    expect(r.run.status).toBe('failed');
    expect(r.run.error.code).toBe('component_failed');
    expect(r.run.error.message).toBe(
      `component Invoke:Call: Http request error: refusing to connect to http://127.0.0.2:${provider.port}: ` +
        '127.0.0.2 is a loopback address (allow it with SWITCHYARD_INVOKE_ALLOW_HOSTS)',
    );
    expect(r.outputs['Invoke:Call']['_ERROR']).toContain('refusing to connect');
    expect(provider.requests).toHaveLength(before);
  });

  it('exception policy default value: a refused Invoke shows its default and the canvas goes on', async () => {
    const agent = await createAgent(
      'invoke-default',
      canvas({
        'Invoke:Call': {
          name: 'Invoke',
          params: {
            url: `http://127.0.0.2:${provider.port}/echo`,
            exception_method: 'comment',
            exception_default_value: 'service unavailable. ',
          },
          downstream: ['Message:After'],
        },
        'Message:After': { name: 'Message', params: { content: ['went on'] } },
      }),
    );
    const r = await runToEnd(agent, 'ping');
    expect(r.run.status).toBe('succeeded');
    expect(r.path).toEqual(['begin', 'Invoke:Call', 'Message:After']);
    expect(r.run.output.answer).toBe('service unavailable. went on');
    // RAGFlow's stream shows the default as a message of its own, before the Invoke finishes.
    const events = await ragflowEventsOf(stack, r.runId, tenant.key);
    const shown = events.findIndex((e) => e.event === 'message' && e.content === 'service unavailable. ');
    expect(shown).toBeGreaterThan(-1);
    expect(events[shown + 1]).toMatchObject({ event: 'message_end' });
    expect(events[shown + 2]).toMatchObject({ event: 'node_finished', component_id: 'Invoke:Call' });
  });

  it('a component past its time budget (SWITCHYARD_GRAPH_TIMEOUT_YAHOOFINANCE_MS) fails the run naming the budget', async () => {
    const agent = await createAgent(
      'yahoo-slow',
      canvas({
        'YahooFinance:Slow': {
          name: 'YahooFinance',
          params: { stock_code: 'sys.query', info: false, news: false, balance_sheet: true },
          downstream: ['Message:Report'],
        },
        'Message:Report': { name: 'Message', params: { content: ['{YahooFinance:Slow@report}'] } },
      }),
    );
    const started = Date.now();
    const r = await runToEnd(agent, 'SLOW');
    expect(r.run.status).toBe('failed');
    expect(r.run.error.message).toBe(
      'component YahooFinance:Slow: timed out after 2000 ms (the YahooFinance time budget; ' +
        'SWITCHYARD_GRAPH_TIMEOUT_YAHOOFINANCE_MS sets it)',
    );
    // Well before the stand-in's 8 s answer.
    expect(Date.now() - started).toBeLessThan(7_500);
  });

  describe("all.json's data_ops branch", () => {
    type AllDsl = {
      components: Record<string, { obj: { params: Record<string, unknown> } }>;
    };

    async function dataOpsRun(dsl: AllDsl) {
      const agent = await createAgent(
        `all-data-ops-${Math.random()}`,
        dsl as unknown as Record<string, unknown>,
      );
      const res = await stack.api(
        'POST',
        '/v1/runs',
        { agent_id: agent, input: { prompt: 'hi' } },
        asTenant(),
      );
      const runId = res.body.run_id as string;
      const status = async () => (await stack.api('GET', `/v1/runs/${runId}`, undefined, asTenant())).body;
      await waitFor('the run to wait for the menu', async () => (await status()).status === 'waiting');
      const resume = golden('all.data_ops_without_dangling_id').inputs.turns[1].resume;
      expect(
        (await stack.api('POST', `/v1/runs/${runId}/resume`, { input: resume }, asTenant())).status,
      ).toBe(202);
      await waitFor('the run to end', async () => ['succeeded', 'failed'].includes((await status()).status));
      const actions = (await stack.api('GET', `/v1/runs/${runId}/actions`, undefined, asTenant())).body
        .actions as {
        node: string;
        result: { paused?: boolean; outputs?: Record<string, unknown> };
      }[];
      const ran = actions.filter((a) => componentIdOfNode(a.node) !== undefined && !a.result?.paused);
      return {
        run: await status(),
        path: ran.map((a) => componentIdOfNode(a.node)!),
        outputs: Object.fromEntries(ran.map((a) => [componentIdOfNode(a.node)!, a.result.outputs ?? {}])),
      };
    }

    const withoutDanglingId = (): AllDsl => {
      const dsl = fixture('all.json') as AllDsl;
      for (const cond of (dsl.components['Switch:Route'].obj.params['conditions'] as { to: string[] }[]) ??
        []) {
        cond.to = cond.to.filter((id) => id !== 'CodeExec:FunnyBroomsShare');
      }
      return dsl;
    };

    it('all.data_ops as written: refused on save naming the dangling id (upstream crashes mid-run)', async () => {
      expect(golden('all.data_ops').error).toMatchObject({ upstream_crash: true });
      const res = await saveAgent('all-as-written', fixture('all.json'));
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body.error.details)).toContain('CodeExec:FunnyBroomsShare');
    });

    it('all.data_ops_without_dangling_id: the path RAGFlow ran and its error at ListOperations:Sort', async () => {
      const g = golden('all.data_ops_without_dangling_id');
      const r = await dataOpsRun(withoutDanglingId());
      expect(r.path).toEqual(g.path);
      expect(r.run.status).toBe('failed');
      expect(r.run.error.message).toContain(
        `component ${g.error!.components![0]}: KeyError ${g.error!.message}`,
      );
      expect(r.run.output.answer).toBe(g.answer);
      // DataOperations appended tag=demo to every sample row, in order.
      expect(r.outputs['DataOperations:UpdateSample']).toEqual({
        result: [
          { id: 2, score: 0.88, title: 'Beta', tag: 'demo' },
          { id: 3, score: 0.76, title: 'Gamma', tag: 'demo' },
          { id: 1, score: 0.91, title: 'Alpha', tag: 'demo' },
        ],
      });
    });

    it("with ListOperations:Sort declaring first and last (beyond the golden): the branch's Message", async () => {
      const dsl = withoutDanglingId();
      dsl.components['ListOperations:Sort'].obj.params['outputs'] = { result: {}, first: {}, last: {} };
      const r = await dataOpsRun(dsl);
      expect(r.run.error).toBeNull();
      const rows = { 1: [1, 0.91, 'Alpha'], 2: [2, 0.88, 'Beta'], 3: [3, 0.76, 'Gamma'] } as const;
      const row = (n: 1 | 2 | 3) => ({ id: rows[n][0], score: rows[n][1], title: rows[n][2], tag: 'demo' });
      expect(r.outputs['ListOperations:Sort']).toEqual({
        result: [row(1), row(2), row(3)],
        first: row(1),
        last: row(3),
      });
      expect(r.outputs['ListOperations:Head2']).toEqual({
        result: [row(1), row(2)],
        first: row(1),
        last: row(2),
      });
      // The Message splices them as json.dumps; the reference pattern eats the spaces around it.
      expect(r.run.output.answer).toMatch(
        /^DataOperations 输出:\[\{.*"title": "Beta".*\}\]\n\nListOperations Sort desc:\[\{.*"title": "Alpha".*\}\]\n\nListOperations Head2:\[.*\]\n\nfirst=\{.*"id": 1.*\}\n\nlast=\{.*"id": 2.*\}$/,
      );
    });
  });
  describe('stock_market_research_assistant.json, the whole canvas', () => {
    type StockGolden = Golden & GoldenScript & { events: GoldenEvent[] };
    type Template = { dsl: { components: Record<string, { obj: { params: Record<string, unknown> } }> } };
    const graphScript = readFileSync(join(__dirname, 'fixtures/graph.script.json'), 'utf8');

    /** The template as RAGFlow's golden ran it: the Agents the template leaves without a model get one. */
    function patched(): Template {
      const t = fixture('stock_market_research_assistant.json') as Template;
      for (const c of Object.values(t.dsl.components)) {
        if (c.obj.params['llm_id'] === '') {
          c.obj.params['llm_id'] = 'kimi-k2-turbo-preview@Moonshot';
        }
      }
      return t;
    }

    afterAll(async () => {
      // The other tests of this file answer from the fixture script.
      await putScript(stack, graphScript);
    });

    it('as shipped (Agents without a model): refused on save naming each, as RAGFlow refuses to load it', async () => {
      const g = golden('stock_market_research_assistant.as_shipped');
      expect(g.error?.message).toContain('LLM does not support empty value');
      const res = await saveAgent('stock-as-shipped', fixture('stock_market_research_assistant.json'));
      expect(res.status).toBe(400);
      const fields = (res.body.error.details as { field: string }[]).map((d) => d.field);
      expect(fields).toEqual(
        expect.arrayContaining([
          'dsl.components.Agent:ManyToesBrush.llm_id',
          'dsl.components.Agent:SharpSlothsSlide.llm_id',
        ]),
      );
    });

    it.each(['aapl', 'not_found'])(
      '%s: the answer, the path, the prompts and the RAGFlow events of the golden run',
      async (scenario) => {
        const g = golden(`stock_market_research_assistant.${scenario}`) as StockGolden;
        const agent = await createAgent(`stock-${scenario}`, patched() as unknown as Record<string, unknown>);
        await scriptGoldenReplies(stack, g);
        const before = provider.requests.length;
        const r = await runToEnd(agent, g.inputs.turns[0].query);
        expect(r.run.error).toBeNull();
        expect(r.run.output.answer).toBe(g.answer);
        expect(r.path).toEqual(g.path);
        await expectGoldenPrompts(stack, g);
        // YahooFinance asked for the golden's symbol (only on the branch that has it).
        const symbols = provider.requests
          .slice(before)
          .filter((q) => q.path.includes('/finance/timeseries/'))
          .map((q) => q.query['symbol']);
        expect([...new Set(symbols)]).toEqual(g.provider_calls?.yfinance ?? []);
        const events = await ragflowEventsOf(stack, r.run.run_id as string, tenant.key);
        expect(reduceRagflow(events)).toEqual(reduceRagflow(g.events));
      },
    );
  });
});
