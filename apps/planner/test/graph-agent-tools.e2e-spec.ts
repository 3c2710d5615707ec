import { join } from 'node:path';
import { type RunEvent, componentIdOfNode } from '@switchyard/contracts';
import { hashStr2Int } from '@switchyard/graph';
import { TestStack, readSse, waitFor } from '@switchyard/testing';
import { dsl, golden as goldenOf, runGoldenTurns } from './graph-fixtures';

// Graph agents with tools and knowledge end to end: Agents calling sub-agents and their Retrieval
// tool through native function calling, Retrieval components searching the tenant's collections
// (seeded through the gateway, named after the canvas's kb ids), each scenario checked against
// RAGFlow's own run of it (libs/graph/fixtures/expected): the model calls in order with their
// prompts and the tools offered, the answer with its tool notes, and the components' path.

interface GoldenMessage {
  role: string;
  content: string | null;
}
interface GoldenCall {
  messages: GoldenMessage[];
  tools_offered: string[];
  reply: string | null;
  tool_calls: { name: string; arguments: Record<string, unknown> }[] | null;
}
interface GoldenEvent {
  event: string;
  content?: string;
  start_to_think?: boolean;
  end_to_think?: boolean;
}
interface Golden {
  inputs: { turns: { query: string; resume?: Record<string, unknown> }[] };
  answer: string;
  path: string[];
  llm: GoldenCall[];
  events: GoldenEvent[];
}
const golden = (name: string): Golden => goldenOf<Golden>(name);

let stack: TestStack;

// subaget.json's sub-agent calls an MCP tool (Amap's maps_weather): a stdio stand-in serves it.
const WEATHER_MCP = join(__dirname, 'fixtures/weather-mcp.mjs');

beforeAll(async () => {
  stack = await TestStack.start({
    script: 'apps/planner/test/fixtures/graph.script.json',
    env: { SWITCHYARD_MCP_STDIO_ALLOW: `${process.execPath} ${WEATHER_MCP}`, SWITCHYARD_MCP_POLL_MS: '300' },
  });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

async function createAgent(name: string, body: Record<string, unknown>): Promise<string> {
  const res = await stack.api('POST', '/v1/agents', { name, kind: 'graph', dsl: body });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

/** One scripted reply per golden call, answered only when the request is the one RAGFlow sent. */
interface Rule {
  call: GoldenCall;
  /** The call whose messages the request must carry (default: `call`). */
  asked?: GoldenCall;
  /** More conditions on the request (scripted model's `when`). */
  also?: Record<string, unknown>;
}

async function script(rules: Rule[], rewrite: (text: string) => string = (t) => t): Promise<void> {
  const body = rules.map(({ call, asked = call, also }, i) => {
    const system = asked.messages[0]?.role === 'system' ? (asked.messages[0].content ?? '') : undefined;
    const user = [...asked.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
    return {
      name: `golden-${i}`,
      times: 1,
      when: {
        ...(system !== undefined ? { system_includes: rewrite(system) } : {}),
        user_includes: rewrite(user),
        last_role: asked.messages[asked.messages.length - 1].role,
        has_tools: asked.tools_offered.length > 0,
        ...(asked.tools_offered.length ? { tools_include: asked.tools_offered[0] } : {}),
        ...also,
      },
      reply: call.tool_calls
        ? { tool_calls: call.tool_calls.map((t) => ({ name: t.name, arguments: t.arguments })) }
        : { content: call.reply ?? '' },
    };
  });
  const res = await fetch(`${stack.llmUrl}/_script`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ strict: true, models: ['scripted'], rules: body }),
  });
  expect(res.status).toBe(200);
  await fetch(`${stack.llmUrl}/_requests`, { method: 'DELETE' });
}

/** Every model call matched its rule, in order, with the system prompt RAGFlow sent. */
async function expectCalls(rules: Rule[], rewrite: (text: string) => string = (t) => t): Promise<void> {
  const requests = (await (await fetch(`${stack.llmUrl}/_requests`)).json()) as {
    rule: string;
    system: string;
  }[];
  expect(requests.map((q) => q.rule)).toEqual(rules.map((_, i) => `golden-${i}`));
  expect(requests.map((q) => q.system)).toEqual(
    rules.map(({ call, asked = call }) => rewrite(asked.messages[0].content ?? '').slice(0, 4000)),
  );
}

const statusOf = async (runId: string) => (await stack.api('GET', `/v1/runs/${runId}`)).body;

/** Runs the golden's turns: the first as a new run, each later one as the resume of its pause. */
async function runTurns(agentId: string, g: Golden) {
  const runId = await runGoldenTurns(stack, agentId, g);
  await waitFor('the run to end', async () =>
    ['succeeded', 'failed', 'cancelled'].includes((await statusOf(runId)).status),
  );
  const run = await statusOf(runId);
  const actions = (await stack.api('GET', `/v1/runs/${runId}/actions`)).body.actions as {
    node: string;
    result: { paused?: boolean };
  }[];
  const path = actions
    .filter((a) => !a.result?.paused)
    .map((a) => componentIdOfNode(a.node))
    .filter((id): id is string => id !== undefined);
  return { run, path, runId };
}

/** The text the run streamed as token events (replayed after the run). */
async function tokensOf(runId: string): Promise<string> {
  const read = await readSse(`${stack.gatewayUrl}/v1/runs/${runId}/events`, {
    headers: { Authorization: `Bearer ${stack.key}` },
    timeoutMs: 30_000,
  });
  return read.frames
    .map((f) => JSON.parse(f.data) as RunEvent)
    .filter((e) => e.event_type === 'token')
    .map((e) => (e.payload as { text: string }).text)
    .join('');
}

/** RAGFlow's `message` events (content and think markers), from a run's `?format=ragflow` stream or a golden. */
const messagesOf = (events: GoldenEvent[]) =>
  events
    .filter((e) => e.event === 'message')
    .map((e) => ({
      content: e.content,
      ...(e.start_to_think ? { start_to_think: true } : {}),
      ...(e.end_to_think ? { end_to_think: true } : {}),
    }));

async function ragflowMessagesOf(runId: string) {
  const read = await readSse(`${stack.gatewayUrl}/v1/runs/${runId}/events?format=ragflow`, {
    headers: { Authorization: `Bearer ${stack.key}` },
    timeoutMs: 30_000,
  });
  return messagesOf(
    read.frames.map((f) => {
      const body = JSON.parse(f.data) as { event: string; data: Record<string, unknown> };
      return { event: body.event, ...body.data } as GoldenEvent;
    }),
  );
}

describe('graph agents: Agents with tools', () => {
  it("subaget as shipped, before the tenant has the MCP server: the sub-agent's MCP tool fails the Agent naming it", async () => {
    const agent = await createAgent('subaget-no-server', dsl('subaget.json'));
    const g = golden('subaget.weather_via_subagent');
    await script([{ call: g.llm[0] }]);
    const r = await runTurns(agent, g);
    expect(r.run.status).toBe('failed');
    expect(r.run.error).toEqual({
      code: 'component_failed',
      message:
        'component Agent:GentleCrabsWrite: Agent Agent:GentleCrabsWrite-->天气agent: MCP tool "maps_weather" is not offered by any MCP server of this tenant (register the server: POST /v1/mcp-servers)',
    });
    // Checked before the model is asked anything, as RAGFlow builds an Agent's tools on load.
    expect(await (await fetch(`${stack.llmUrl}/_requests`)).json()).toEqual([]);
  });

  it('subaget.weather_via_subagent: the parent calls its sub-agent, which calls the MCP tool of the tenant\u2019s server', async () => {
    const server = await stack.api('POST', '/v1/mcp-servers', {
      name: 'amap',
      transport: 'stdio',
      command: process.execPath,
      args: [WEATHER_MCP],
    });
    expect(server.status).toBe(201);
    await waitFor('the MCP tool in /v1/tools', async () =>
      ((await stack.api('GET', '/v1/tools')).body.tools as { name: string }[]).some(
        (t) => t.name === 'mcp.amap.maps_weather',
      ),
    );
    const g = golden('subaget.weather_via_subagent');
    const agent = await createAgent('subaget', dsl('subaget.json'));
    // The sub-agent's second call carries the tool's answer, as the golden's stubbed server gave it.
    const rules: Rule[] = [
      { call: g.llm[0] },
      { call: g.llm[1] },
      { call: g.llm[2], also: { any_includes: '北京: 晴, 25°C' } },
      { call: g.llm[3] },
    ];
    await script(rules);
    const r = await runTurns(agent, g);
    expect(r.run.error).toBeNull();
    expect(r.run.output.answer).toBe(g.answer);
    expect(r.path).toEqual(g.path);
    await expectCalls(rules);
    // Streamed to the Message: the tool note as thinking, then the reply; a RAGFlow client sees
    // the note between RAGFlow's think markers.
    expect(await tokensOf(r.runId)).toBe(g.answer);
    expect(await ragflowMessagesOf(r.runId)).toEqual(messagesOf(g.events));
    // The Agent's usage is every call it made, its sub-agent's included (each one metered).
    const actions = (await stack.api('GET', `/v1/runs/${r.runId}/actions`)).body.actions as {
      node: string;
      usage: { total_tokens: number };
    }[];
    const agentAction = actions.find((a) => componentIdOfNode(a.node) === 'Agent:GentleCrabsWrite')!;
    const metered = await stack.sql<{ calls: number; total: number }>(
      `SELECT count(*)::int AS calls, sum(total_tokens)::int AS total FROM model_usage WHERE run_id = $1`,
      [r.runId],
    );
    expect(metered[0].calls).toBe(4);
    expect(agentAction.usage.total_tokens).toBe(metered[0].total);
    expect(agentAction.usage.total_tokens).toBeGreaterThan(0);
  });

  it('an Agent listing a tool component nobody provides fails with a component error naming it', async () => {
    const broken = dsl('user_interaction.json') as {
      dsl: { components: Record<string, { obj: { params: { tools: { component_name: string }[] } } }> };
    };
    broken.dsl.components['Agent:TangyWordsType'].obj.params.tools[0].component_name = 'Teleporter';
    const agent = await createAgent('unknown-tool', broken);
    const g = golden('user_interaction.tool_call');
    await script([{ call: g.llm[0] }]);
    const r = await runTurns(agent, g);
    expect(r.run.status).toBe('failed');
    expect(r.run.error.message).toBe(
      'component Agent:TangyWordsType: Agent Agent:TangyWordsType: tool 0 is a Teleporter component, which is not available as a tool here (available: Agent, Retrieval, TavilySearch, YahooFinance, CodeExec, ExeSQL, Wikipedia, Email, AkShare, WenCai, GitHub, SearXNG, Google, GoogleScholar, DuckDuckGo, ArXiv, PubMed, QWeather, DeepL, BaiduFanyi, TuShare, Jin10, TavilyExtract, Crawler, Baidu, calculator, http_get, http_request, sql_query)',
    );
  });

  it.each(['no_tool', 'tool_call'])(
    'user_interaction.%s: plan, pause for the feedback, resume; the searcher may call its Retrieval tool',
    async (scenario) => {
      const g = golden(`user_interaction.${scenario}`);
      const agent = await createAgent(`interaction-${scenario}`, dsl('user_interaction.json'));
      const rules = g.llm.map((call) => ({ call }));
      await script(rules);
      const r = await runTurns(agent, g);
      expect(r.run.error).toBeNull();
      expect(r.run.output.answer).toBe(g.answer);
      expect(r.path).toEqual(g.path);
      await expectCalls(rules);
      expect(await ragflowMessagesOf(r.runId)).toEqual(messagesOf(g.events));
    },
  );
});

describe('graph agents: Retrieval over the tenant’s collections', () => {
  it('retrieval_and_generate.default: a Retrieval without a query gives its empty_response', async () => {
    const g = golden('retrieval_and_generate.default');
    const agent = await createAgent('rag', dsl('retrieval_and_generate.json'));
    const rules = g.llm.map((call) => ({ call }));
    await script(rules);
    const r = await runTurns(agent, g);
    expect(r.run.error).toBeNull();
    expect(r.run.output.answer).toBe(g.answer);
    expect(r.path).toEqual(g.path);
    await expectCalls(rules);
  });

  it.each(['product_related', 'others'])(
    'retrieval_categorize_and_generate.%s: Categorize routes through to: alone',
    async (scenario) => {
      const g = golden(`retrieval_categorize_and_generate.${scenario}`);
      const agent = await createAgent(`rcg-${scenario}`, dsl('retrieval_categorize_and_generate.json'));
      const rules = g.llm.map((call) => ({ call }));
      await script(rules);
      const r = await runTurns(agent, g);
      expect(r.run.error).toBeNull();
      expect(r.run.output.answer).toBe(g.answer);
      expect(r.path).toEqual(g.path);
      await expectCalls(rules);
    },
  );

  it('all.retrieval: a Retrieval with no dataset selected fails the run naming it, as RAGFlow', async () => {
    const g = golden('all.retrieval') as Golden & { error: { message: string; components: string[] } };
    // The golden's patch of all.json: the Switch's dangling CodeExec:FunnyBroomsShare removed.
    const patched = dsl('all.json') as {
      components: Record<string, { obj: { params: { conditions?: { to: string[] }[] } } }>;
    };
    for (const cond of patched.components['Switch:Route'].obj.params.conditions ?? []) {
      cond.to = cond.to.filter((id) => id !== 'CodeExec:FunnyBroomsShare');
    }
    const agent = await createAgent('all-retrieval', patched);
    await script([]);
    const r = await runTurns(agent, g);
    expect(r.run.status).toBe('failed');
    expect(r.run.error).toEqual({
      code: 'component_failed',
      message: `component ${g.error.components[0]}: ${g.error.message}`,
    });
    expect(r.run.output.answer).toBe(g.answer);
    expect(r.path).toEqual(g.path);
  });

  describe('smart_customer_service_specialist: collections named after the canvas’s kb ids', () => {
    let agent: string;
    // The golden's chunk ids were canned: the prompt shows ours, hashed the same way.
    const ids = new Map<string, number>();

    async function seed(kbId: string, text: string, title: string, goldenId: number): Promise<void> {
      const created = await stack.api('POST', '/v1/collections', {
        name: kbId,
        index_sets: [{ index_name: 'main' }],
      });
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      const ingested = await stack.api('POST', `/v1/collections/${id}/documents`, {
        documents: [{ text, metadata: { document_name: title } }],
      });
      expect(ingested.status).toBe(202);
      const found = await stack.api('POST', `/v1/collections/${id}/search`, { query: text, top_k: 1 });
      expect(found.body.results).toHaveLength(1);
      ids.set(`ID: ${goldenId}\n`, hashStr2Int(found.body.results[0].chunk_id as string, 500));
    }

    const rewrite = (text: string): string => {
      let out = text;
      for (const [from, to] of ids) {
        out = out.split(from).join(`ID: ${to}\n`);
      }
      return out;
    };

    beforeAll(async () => {
      agent = await createAgent('smart-cs', dsl('smart_customer_service_specialist.json'));
      await seed(
        'a5aaec4a819b11f095f1047c16ec874f',
        'To clean the filter, remove it and rinse with water.',
        'user_guide.pdf',
        75,
      );
      await seed(
        '65cb5150819b11f08347047c16ec874f',
        'X100: 2 fans, 40dB. X200: 3 fans, 35dB.',
        'specs.xlsx',
        159,
      );
    });

    it.each(['usage_guide', 'comparison', 'booking'])(
      'smart_customer_service_specialist.%s: the chunks in the prompt, cited as RAGFlow does',
      async (scenario) => {
        const g = golden(`smart_customer_service_specialist.${scenario}`);
        const rules = g.llm.map((call) => ({ call }));
        await script(rules, rewrite);
        const r = await runTurns(agent, g);
        expect(r.run.error).toBeNull();
        expect(r.run.output.answer).toBe(g.answer);
        expect(r.path).toEqual(g.path);
        await expectCalls(rules, rewrite);
      },
    );
  });
});
