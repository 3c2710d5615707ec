import { SecretBox } from '@switchyard/config';
import { type RunEvent } from '@switchyard/contracts';
import { ProviderStandIn, type StandInRequest, TestStack, readSse } from '@switchyard/testing';
import { putScript } from './graph-fixtures';

// PuppyEngine edges that reach beyond the workflow, end to end through the gateway, the
// orchestrator and the planner: an llm edge's own model through the registry, web search (the
// tenant's Tavily key, Tavily being a local stand-in), qa search (a registry model named as
// PuppyEngine names Perplexity's) and deep research (the agentic loop over vector, web and qa
// search). Each editor (PuppyFlow) node type is run as a twin of its engine form.

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- workflows and the gateway's JSON
type Any = any;
const ADMIN = 'puppy-research-admin';
const REGISTRY_TTL_MS = 200;
const fp = SecretBox.fingerprint;

let stack: TestStack;
let provider: ProviderStandIn;
let tenant: { id: string; key: string };
const tavilyCalls: StandInRequest[] = [];

const PAGES = [
  { title: 'PuppyAgent pricing', url: 'https://puppy.example/pricing', content: 'Pro is $25 a month.' },
  { title: 'PuppyAgent FAQ', url: 'https://puppy.example/faq', content: 'A free plan exists.' },
  { title: 'Elsewhere', url: 'https://else.example/', content: 'Unrelated.' },
];

beforeAll(async () => {
  provider = await new ProviderStandIn()
    .on('POST', '/search', (req) => {
      tavilyCalls.push(req);
      const body = JSON.parse(req.body) as { max_results: number };
      return req.headers['authorization'] === 'Bearer tvly-puppy'
        ? { json: { results: PAGES.slice(0, body.max_results) } }
        : { status: 401, json: { detail: { error: 'Unauthorized' } } };
    })
    .start();
  stack = await TestStack.start({
    script: 'apps/planner/test/fixtures/graph.script.json',
    env: {
      SWITCHYARD_ADMIN_TOKEN: ADMIN,
      SWITCHYARD_MODEL_REGISTRY_TTL_MS: String(REGISTRY_TTL_MS),
      SWITCHYARD_TAVILY_BASE_URL: provider.url,
      SWITCHYARD_PROVIDER_ALLOW_HOSTS: '127.0.0.1',
    },
  });
  tenant = await stack.newTenant('puppy-research', ADMIN);
  const admin = (method: string, path: string, body?: unknown) =>
    stack.api(method, path, body, { Authorization: `Bearer ${ADMIN}` });
  expect(
    (await admin('PUT', `/v1/admin/tenants/${tenant.id}/provider-keys/tavily`, { secret: 'tvly-puppy' }))
      .status,
  ).toBe(200);
  // Two chat models of the registry served by the scripted model server, each with its own key, so
  // the key a request carries tells which model served it.
  for (const [name, secret] of [
    ['gpt-5-mini', 'sk-edge-model'],
    ['perplexity/sonar-pro', 'sk-perplexity'],
  ]) {
    const vendor = await admin('POST', '/v1/admin/vendors', {
      name: `vendor-${name.replace(/\W/g, '-')}`,
      kind: 'openai',
      base_url: `${stack.llmUrl}/v1`,
    });
    expect(vendor.status).toBe(201);
    expect((await admin('POST', `/v1/admin/vendors/${vendor.body.id}/keys`, { secret })).status).toBe(201);
    expect(
      (await admin('POST', '/v1/admin/models', { vendor_id: vendor.body.id, name, category: 'text' })).status,
    ).toBe(201);
  }
  await new Promise((r) => setTimeout(r, REGISTRY_TTL_MS * 3));
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await provider?.stop();
});

const asTenant = () => ({ Authorization: `Bearer ${tenant.key}` });

async function createAgent(name: string, dsl: unknown): Promise<string> {
  const res = await stack.api('POST', '/v1/agents', { name, kind: 'graph', dsl }, asTenant());
  expect(res.status).toBe(201);
  return res.body.id as string;
}

interface LlmRequest {
  path: string;
  rule: string | null;
  api_key_fingerprint: string | null;
  system: string;
}
async function requests(): Promise<LlmRequest[]> {
  return ((await (await fetch(`${stack.llmUrl}/_requests`)).json()) as LlmRequest[]).filter(
    (r) => r.path !== '/v1/embeddings',
  );
}

const clearRequests = () => fetch(`${stack.llmUrl}/_requests`, { method: 'DELETE' });

async function run(agentId: string, prompt: string) {
  const res = await stack.api('POST', '/v1/runs', { agent_id: agentId, input: { prompt } }, asTenant());
  expect(res.status).toBe(202);
  const runId = res.body.run_id as string;
  const sse = await readSse(`${stack.gatewayUrl}/v1/runs/${runId}/events`, {
    headers: asTenant(),
    timeoutMs: 60_000,
  });
  const events = sse.frames.map((f) => JSON.parse(f.data) as RunEvent);
  expect(events.at(-1)?.event_type).toBe('done');
  return (await stack.api('GET', `/v1/runs/${runId}`, undefined, asTenant())).body as Any;
}

const text = (label: string, content = '') => ({ label, type: 'text', data: { content } });

/** A PuppyFlow editor workflow: data blocks, one computation node, connections in and out. */
function editor(
  blocks: {
    id: string;
    type: 'text' | 'structured';
    label: string;
    content: unknown;
    indexingList?: unknown[];
    isOutput?: boolean;
  }[],
  node: { id: string; type: string; data: Any },
  from: string[],
  to: string[],
) {
  return {
    workflow: {
      blocks: [
        ...blocks.map((b) => ({
          id: b.id,
          type: b.type,
          data: {
            label: b.label,
            content: b.content,
            ...(b.indexingList ? { indexingList: b.indexingList } : {}),
            ...(b.isOutput ? { isOutput: true } : {}),
          },
        })),
        { id: node.id, type: node.type, data: node.data },
      ],
      edges: [
        ...from.map((s) => ({ source: s, target: node.id })),
        ...to.map((t) => ({ source: node.id, target: t })),
      ],
    },
  };
}

describe('PuppyEngine edges beyond the workflow', () => {
  it("an llm edge's own model serves it when the registry has it; another name falls back to the agent's", async () => {
    await putScript(stack, { rules: [{ name: 'any', reply: { content: 'ok' } }] });
    const llm = (model: string, to: string) => ({
      type: 'llm',
      data: {
        model,
        messages: [{ role: 'user', content: '{{q}}' }],
        inputs: { q: 'q' },
        outputs: { [to]: to },
      },
    });
    const agent = await createAgent('models', {
      blocks: { q: text('q'), a: text('a'), b: text('b') },
      edges: { named: llm('gpt-5-mini', 'a'), unnamed: llm('openai/gpt-5', 'b') },
    });
    const r = await run(agent, 'hi');
    expect(r.error).toBeNull();
    expect(r.output.blocks).toEqual({ a: 'ok', b: 'ok' });
    const keys = (await requests()).map((q) => q.api_key_fingerprint).sort();
    // The default model (seeded from SWITCHYARD_LLM_*) serves the name the registry lacks.
    expect(keys).toContain(fp('sk-edge-model'));
    expect(keys.filter((k) => k === fp('sk-edge-model'))).toHaveLength(1);
    expect(keys).toHaveLength(2);
  });

  it("chunk, llm mode: PuppyEngine's prompt asks the edge's model for {chunks}, natively", async () => {
    await putScript(stack, {
      strict: true,
      rules: [
        {
          name: 'chunker',
          when: {
            system_includes: 'You are an expert document chunker',
            user_includes: 'The original document: Cats purr. Dogs bark.',
          },
          reply: { content: '{"chunks": ["Cats purr.", "Dogs bark."]}' },
        },
      ],
    });
    const chunk = {
      blocks: {
        doc: { label: 'Doc', type: 'text', data: { content: '' } },
        out: { label: 'Chunks', type: 'structured', data: { content: '' } },
      },
      edges: {
        c: {
          type: 'chunk',
          data: {
            chunking_mode: 'llm',
            sub_chunking_mode: 'llm',
            extra_configs: { model: { 'gpt-5-mini': {} } },
            inputs: { doc: 'Doc' },
            outputs: { out: 'Chunks' },
          },
        },
      },
    };
    await clearRequests();
    const r = await run(await createAgent('llm-chunk', chunk), 'Cats purr. Dogs bark.');
    expect(r.error).toBeNull();
    expect(r.output.blocks).toEqual({ out: ['Cats purr.', 'Dogs bark.'] });
    const calls = await requests();
    expect(calls).toEqual([
      expect.objectContaining({ rule: 'chunker', api_key_fingerprint: fp('sk-edge-model') }),
    ]);
    // (Inline, the orchestrator's pure chunking would have failed on the mode: the planner ran it.)
  });

  it('web search: the hits of the tenant key’s search, as Google items; the editor’s searchGoogle alike', async () => {
    const engine = {
      blocks: { q: text('Query'), out: { label: 'Results', type: 'structured', data: { content: '' } } },
      edges: {
        web: {
          type: 'search',
          data: {
            search_type: 'web',
            sub_search_type: 'google',
            top_k: 2,
            query_id: { q: 'Query' },
            extra_configs: {},
            inputs: { q: 'Query' },
            outputs: { out: 'Results' },
          },
        },
      },
    };
    const twin = editor(
      [
        { id: 'q', type: 'text', label: 'Query', content: '' },
        { id: 'out', type: 'structured', label: 'Results', content: '' },
      ],
      { id: 'web', type: 'searchGoogle', data: { top_k: 2 } },
      ['q'],
      ['out'],
    );
    const expected = PAGES.slice(0, 2).map((p) => ({
      title: p.title,
      link: p.url,
      snippet: p.content,
      content: p.content,
    }));
    for (const dsl of [engine, twin]) {
      tavilyCalls.length = 0;
      const r = await run(await createAgent('web', dsl), 'puppyagent pricing');
      expect(r.error).toBeNull();
      expect(r.output.blocks).toEqual({ out: expected });
      expect(tavilyCalls.map((c) => (JSON.parse(c.body) as Any).query)).toEqual(['puppyagent pricing']);
      expect((JSON.parse(tavilyCalls[0].body) as Any).max_results).toBe(2);
    }
  });

  it('qa search: one call of the Perplexity model the edge names, with PuppyEngine’s prompt; the editor’s searchPerplexity alike', async () => {
    await putScript(stack, {
      rules: [
        {
          name: 'perplexity',
          when: { system_includes: 'helpful, detailed, polite conversation', user_includes: 'what is rag?' },
          reply: { content: 'Retrieval-augmented generation.' },
        },
      ],
    });
    const engine = {
      blocks: { q: text('Query'), out: { label: 'Answer', type: 'structured', data: { content: '' } } },
      edges: {
        qa: {
          type: 'search',
          data: {
            search_type: 'qa',
            sub_search_type: 'perplexity',
            query_id: { q: 'Query' },
            extra_configs: { model: { 'sonar-pro': {} } },
            inputs: { q: 'Query' },
            outputs: { out: 'Answer' },
          },
        },
      },
    };
    const twin = editor(
      [
        { id: 'q', type: 'text', label: 'Query', content: '' },
        { id: 'out', type: 'structured', label: 'Answer', content: '' },
      ],
      { id: 'qa', type: 'searchPerplexity', data: { extra_configs: { model: 'sonar-pro' } } },
      ['q'],
      ['out'],
    );
    for (const dsl of [engine, twin]) {
      await clearRequests();
      const r = await run(await createAgent('qa', dsl), 'what is rag?');
      expect(r.error).toBeNull();
      expect(r.output.blocks).toEqual({ out: ['Retrieval-augmented generation.'] });
      const [call, ...more] = await requests();
      expect(more).toEqual([]);
      // "sonar-pro" is PuppyEngine's "perplexity/sonar-pro": the registry model of that name served.
      expect(call).toMatchObject({ rule: 'perplexity', api_key_fingerprint: fp('sk-perplexity') });
    }
  });

  it('deep research: the model calls vector and web search in its reply, reads their results, then answers; the editor’s deepresearch alike', async () => {
    await putScript(stack, {
      rules: [
        {
          // Answers only a second call that carries both tools' results back.
          name: 'final',
          when: {
            system_includes: 'intelligent research assistant',
            user_includes: 'Result: --- Results from kb_',
            any_includes: 'URL: https://puppy.example/pricing',
            count_role: { role: 'user', min: 2, max: 2 },
          },
          reply: { content: 'Pro costs $25 a month.' },
        },
        {
          name: 'research',
          when: {
            system_includes: 'VECTOR_SEARCH - Search across',
            count_role: { role: 'user', min: 1, max: 1 },
          },
          reply: {
            content:
              'I will look.\nAPI CALL: VECTOR_SEARCH "price"\nAPI CALL: GOOGLE_SEARCH "puppyagent price"',
          },
        },
      ],
    });
    const faq = [
      { question: 'What is your price?', answer: '$25 for pro users' },
      { question: 'Where are you?', answer: 'Singapore' },
    ];
    const kbItem = {
      type: 'vector',
      index_name: 'faq',
      status: 'notStarted',
      key_path: [{ id: 'k', type: 'key', value: 'question' }],
      value_path: [],
      collection_configs: { model: '' },
    };
    const extra = (dataSource: unknown[]) => ({
      model: 'openai/gpt-5',
      temperature: 0.1,
      max_tokens: 10000,
      max_iterations: 3,
      vector_search_configs: { top_k: 1, threshold: 0.1, data_source: dataSource },
      google_search_configs: { top_k: 1 },
      perplexity_search_configs: { model: 'perplexity/sonar' },
    });
    const source = { id: 'kb', label: 'KB', index_item: { index_name: 'faq' } };
    const engine = {
      blocks: {
        q: text('Query'),
        kb: { label: 'KB', type: 'structured', data: { content: faq, indexingList: [kbItem] } },
        out: { ...text('Report'), isOutput: true },
      },
      edges: {
        dr: {
          type: 'deep_research',
          data: {
            query: '{{Query}}',
            extra_configs: extra([source]),
            inputs: { q: 'Query' },
            outputs: { out: 'Report' },
          },
        },
      },
    };
    const twin = editor(
      [
        { id: 'q', type: 'text', label: 'Query', content: '' },
        { id: 'kb', type: 'structured', label: 'KB', content: faq, indexingList: [kbItem] },
        { id: 'out', type: 'text', label: 'Report', content: '', isOutput: true },
      ],
      { id: 'dr', type: 'deepresearch', data: { extra_configs: extra([]), dataSource: [source] } },
      ['q'],
      ['out'],
    );
    for (const dsl of [engine, twin]) {
      tavilyCalls.length = 0;
      await clearRequests();
      const r = await run(await createAgent('research', dsl), 'How much is PuppyAgent?');
      expect(r.error).toBeNull();
      expect(r.output.blocks).toEqual({ out: 'Pro costs $25 a month.' });
      expect((await requests()).map((q) => q.rule)).toEqual(['research', 'final']);
      expect(tavilyCalls.map((c) => (JSON.parse(c.body) as Any).query)).toEqual(['puppyagent price']);
    }
  });

  it('refuses on save what it cannot run: a search type it lacks, a web top_k over 20, too many research rounds', async () => {
    const search = (data: Any) => ({
      blocks: { q: text('q'), out: text('out') },
      edges: {
        s: {
          type: 'search',
          data: { query_id: { q: 'q' }, inputs: { q: 'q' }, outputs: { out: 'out' }, ...data },
        },
      },
    });
    const cases: [unknown, string][] = [
      [search({ search_type: 'elastic' }), 'dsl.edges.s.data.search_type'],
      [search({ search_type: 'web', top_k: 50 }), 'dsl.edges.s.data.top_k'],
      [
        {
          blocks: { q: text('q'), out: text('out') },
          edges: {
            s: {
              type: 'deep_research',
              data: { extra_configs: { max_iterations: 50 }, inputs: { q: 'q' }, outputs: { out: 'out' } },
            },
          },
        },
        'dsl.edges.s.data.extra_configs.max_iterations',
      ],
    ];
    for (const [dsl, field] of cases) {
      const res = await stack.api('POST', '/v1/agents', { name: 'bad', kind: 'graph', dsl }, asTenant());
      expect(res.status).toBe(400);
      expect(res.body.error.details).toContainEqual(expect.objectContaining({ field }));
    }
  });
});
