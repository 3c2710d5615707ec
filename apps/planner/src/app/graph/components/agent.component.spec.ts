// The Agent and Retrieval components against the real Postgres (a scratch database, migrated)
// and the scripted model server over real HTTP through the registry's chat model.
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { DEV_SECRET_KEY } from '@switchyard/config';
import { type Canvas, hashStr2Int, parseCanvas, type ComponentContext } from '@switchyard/graph';
import { CreateCollectionSchema } from '@switchyard/contracts';
import { KnowledgeStore } from '@switchyard/knowledge';
import { type ChatModels, createChatModels } from '@switchyard/models';
import { createDataSource, ensureDatabase, runMigrationsLocked } from '@switchyard/persistence';
import { ScriptedLlmProcess, dropDatabase } from '@switchyard/testing';
import type { GraphToolFactory } from '../graph-tool';
import { AgentComponent } from './agent.component';
import { RetrievalComponent } from './retrieval.component';

jest.setTimeout(60_000);

const url = (() => {
  const u = new URL(process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  u.pathname = `/switchyard_test_graph_tools_${process.pid}`;
  return u.toString();
})();

const usage = { prompt_tokens: 10, completion_tokens: 2 };
let ds: DataSource;
let llm: ScriptedLlmProcess;
let models: ChatModels;
let store: KnowledgeStore;
let tenantId: string;
let manualsId: string;

beforeAll(async () => {
  llm = await ScriptedLlmProcess.start({
    strict: true,
    rules: [
      // [weather]: the model calls the factory's tool, then answers with its result.
      {
        name: 'weather-call',
        when: { system_includes: '[weather]', last_role: 'user', tools_include: 'weather_0' },
        reply: { tool_calls: [{ name: 'weather_0', arguments: { city: 'Paris' } }], usage },
      },
      {
        name: 'weather-answer',
        when: { system_includes: '[weather]', last_role: 'tool' },
        reply: { content: 'It is {{tool_result}}.', usage },
      },
      // [stubborn]: calls its tool every round until told it exceeded them.
      {
        name: 'stubborn-gives-up',
        when: { system_includes: '[stubborn]', user_includes: 'Exceed max rounds: 1' },
        reply: { content: 'I give up.', usage },
      },
      {
        name: 'stubborn-call',
        when: { system_includes: '[stubborn]' },
        reply: { tool_calls: [{ name: 'weather_0', arguments: { city: 'Oslo' } }], usage },
      },
      // [failing]: the tool fails; the model reads the error as the result.
      {
        name: 'failing-call',
        when: { system_includes: '[failing]', last_role: 'user' },
        reply: { tool_calls: [{ name: 'weather_0', arguments: { city: 'Atlantis' } }], usage },
      },
      {
        name: 'failing-answer',
        when: { system_includes: '[failing]', last_role: 'tool' },
        reply: { content: 'The tool said: {{tool_result}}', usage },
      },
      // [search]: the model searches the manuals with search_my_dateset_0.
      {
        name: 'search-call',
        when: { system_includes: '[search]', last_role: 'user', tools_include: 'search_my_dateset_0' },
        reply: {
          tool_calls: [{ name: 'search_my_dateset_0', arguments: { query: 'clean the filter' } }],
          usage,
        },
      },
      {
        name: 'search-answer',
        when: { system_includes: '[search]', last_role: 'tool' },
        reply: { content: 'Rinse it.', usage },
      },
    ],
  });
  await ensureDatabase(url);
  ds = await createDataSource(url, { poolSize: 4 });
  await runMigrationsLocked(ds);
  models = createChatModels(ds, {
    llm: {
      SWITCHYARD_LLM_BASE_URL: llm.url,
      SWITCHYARD_LLM_API_KEY: 'k',
      SWITCHYARD_LLM_MODEL: 'scripted',
      SWITCHYARD_LLM_TIMEOUT_MS: 10_000,
      SWITCHYARD_LLM_MAX_RETRIES: 0,
    },
    registry: {
      SWITCHYARD_MODEL_REGISTRY_TTL_MS: 0,
      SWITCHYARD_MODEL_REGISTRY_LEASE_MS: 0,
      SWITCHYARD_LLM_COOLDOWN_MS: 5_000,
      SWITCHYARD_LLM_MAX_WAIT_MS: 2_000,
    },
    secretKey: DEV_SECRET_KEY,
  });
  await models.router.store.ensureSeeded();
  store = new KnowledgeStore(ds);
  [{ id: tenantId }] = (await ds.query(`INSERT INTO tenants (name) VALUES ($1) RETURNING id::text AS id`, [
    `t-${randomUUID()}`,
  ])) as { id: string }[];
  const manuals = await store.createCollection(
    tenantId,
    CreateCollectionSchema.parse({ name: 'manuals', index_sets: [{ index_name: 'main' }] }),
  );
  manualsId = manuals.id;
  await store.ingest(tenantId, manualsId, {
    documents: [
      { text: 'To clean the filter, remove it and rinse with water.', metadata: { filename: 'guide.pdf' } },
    ],
  });
});

afterAll(async () => {
  await llm?.stop();
  await ds?.destroy();
  await dropDatabase(url);
});

/** A canvas of Begin → the component → (a Message when `streaming`). */
function canvasWith(name: string, params: Record<string, unknown>, streaming = false): Canvas {
  return parseCanvas({
    components: {
      begin: { obj: { component_name: 'Begin', params: {} }, downstream: ['X:1'], upstream: [] },
      'X:1': {
        obj: { component_name: name, params },
        downstream: streaming ? ['Message:M'] : [],
        upstream: ['begin'],
      },
      ...(streaming
        ? {
            'Message:M': {
              obj: { component_name: 'Message', params: { content: ['{X:1@content}'] } },
              downstream: [],
              upstream: ['X:1'],
            },
          }
        : {}),
    },
  });
}

function contextOf(canvas: Canvas, query: string): ComponentContext {
  return {
    canvas,
    component: canvas.components['X:1'],
    scope: { canvas, globals: { 'sys.query': query }, outputs: { begin: {} } },
    prompt: query,
    tenantId,
    runId: randomUUID(),
    taskId: randomUUID(),
    firstTurn: false,
    signal: new AbortController().signal,
    emitToken: async () => undefined,
    ran: ['begin'],
    resumes: 0,
  };
}

/** A factory standing for TavilySearch and the like: records its calls, fails for Atlantis. */
function weatherFactory(calls: Record<string, unknown>[]): GraphToolFactory {
  return {
    componentName: 'Weather',
    create: (_entry, index) => ({
      name: `weather_${index}`,
      description: 'The weather of a city.',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      call: async (args) => {
        calls.push(args);
        if (args['city'] === 'Atlantis') {
          throw new Error('no such city: Atlantis');
        }
        return `sunny in ${String(args['city'])}`;
      },
    }),
  };
}

const weatherTool = [{ component_name: 'Weather', name: 'Weather', params: {} }];

describe(AgentComponent.name, () => {
  const retrieval = () => new RetrievalComponent(store);

  it('offers a factory’s tool, runs the call the model makes and sums every call’s usage', async () => {
    const calls: Record<string, unknown>[] = [];
    const agent = new AgentComponent(models, retrieval(), [weatherFactory(calls)]);
    const canvas = canvasWith('Agent', { sys_prompt: '[weather]', tools: weatherTool, max_rounds: 2 });
    const effect = await agent.run(contextOf(canvas, 'Weather in Paris?'));
    expect(calls).toEqual([{ city: 'Paris' }]);
    expect(effect.outputs).toEqual({ content: 'It is sunny in Paris.' });
    expect(effect.usage).toEqual({ prompt_tokens: 20, completion_tokens: 4, total_tokens: 24 });
  });

  it('feeding a Message, streams a note per tool call as thinking', async () => {
    const agent = new AgentComponent(models, retrieval(), [weatherFactory([])]);
    const canvas = canvasWith('Agent', { sys_prompt: '[weather]', tools: weatherTool }, true);
    const effect = await agent.run(contextOf(canvas, 'Weather in Paris?'));
    expect(effect.outputs).toEqual({
      content: 'Running the weather_0 tool...It is sunny in Paris.',
      _streamed: '<think>Running the weather_0 tool...</think>It is sunny in Paris.',
    });
  });

  it('stops after max_rounds + 1 rounds and asks once more, told it exceeded them', async () => {
    const calls: Record<string, unknown>[] = [];
    const agent = new AgentComponent(models, retrieval(), [weatherFactory(calls)]);
    const canvas = canvasWith('Agent', { sys_prompt: '[stubborn]', tools: weatherTool, max_rounds: 1 });
    const effect = await agent.run(contextOf(canvas, 'Weather?'));
    expect(calls).toHaveLength(2);
    expect(effect.outputs['content']).toBe('I give up.');
    expect(effect.usage?.total_tokens).toBe(36);
  });

  it('answers the model with a failing tool’s error, as RAGFlow does', async () => {
    const agent = new AgentComponent(models, retrieval(), [weatherFactory([])]);
    const canvas = canvasWith('Agent', { sys_prompt: '[failing]', tools: weatherTool });
    const effect = await agent.run(contextOf(canvas, 'Weather in Atlantis?'));
    expect(effect.outputs['content']).toBe('The tool said: no such city: Atlantis');
  });

  it('searches the tenant’s collections with its Retrieval tool (search_my_dateset_0)', async () => {
    const agent = new AgentComponent(models, retrieval());
    const canvas = canvasWith('Agent', {
      sys_prompt: '[search]',
      tools: [{ component_name: 'Retrieval', name: 'Retrieval', params: { kb_ids: ['manuals'] } }],
    });
    const effect = await agent.run(contextOf(canvas, 'How do I clean it?'));
    expect(effect.outputs).toEqual({ content: 'Rinse it.', _chunks: 1 });
  });

  it('without any factory, an Agent listing an unknown tool fails naming it (no model call)', async () => {
    const before = (await llm.requests()).length;
    const agent = new AgentComponent(models, retrieval(), undefined);
    const canvas = canvasWith('Agent', { sys_prompt: '[weather]', tools: weatherTool });
    await expect(agent.run(contextOf(canvas, 'Weather?'))).rejects.toThrow(
      'Agent X:1: tool 0 is a Weather component, which is not available as a tool here (available: Agent, Retrieval)',
    );
    expect(await llm.requests()).toHaveLength(before);
  });
});

describe(RetrievalComponent.name, () => {
  const run = (params: Record<string, unknown>, query = 'How do I clean the filter?') =>
    new RetrievalComponent(store).run(contextOf(canvasWith('Retrieval', params), query));

  it('gives empty_response without a query, searching nothing', async () => {
    const effect = await run({ kb_ids: ['manuals'], empty_response: 'Nothing found in dataset' });
    expect(effect.outputs).toEqual({ formalized_content: 'Nothing found in dataset' });
  });

  it('finds a collection by name and formats its chunks as RAGFlow’s kb_prompt', async () => {
    const effect = await run({ kb_ids: ['manuals'], query: '{sys.query}' });
    const [found] = effect.outputs['json'] as { chunk_id: string; docnm_kwd: string }[];
    expect(found.docnm_kwd).toBe('guide.pdf');
    expect(effect.outputs['formalized_content']).toBe(
      `\nID: ${hashStr2Int(found.chunk_id, 500)}\n├── Title: guide.pdf\n└── Content:\n` +
        'To clean the filter, remove it and rinse with water.',
    );
  });

  it('finds a collection by its id written as RAGFlow writes ids (no dashes)', async () => {
    const effect = await run({ dataset_ids: [manualsId.replace(/-/g, '')], query: '{sys.query}' });
    expect(effect.outputs['json']).toHaveLength(1);
  });

  it('cuts at similarity_threshold: an unrelated query finds nothing', async () => {
    const effect = await run(
      { kb_ids: ['manuals'], query: '{sys.query}', empty_response: 'none' },
      'Paris weather',
    );
    expect(effect.outputs).toEqual({ formalized_content: 'none' });
  });

  it('fails with RAGFlow’s message when no dataset the tenant has is selected', async () => {
    await expect(run({ kb_ids: ['not-a-collection'], query: '{sys.query}' })).rejects.toThrow(
      'No dataset is selected.',
    );
    await expect(run({ kb_ids: [], retrieval_from: 'dataset', query: '{sys.query}' })).rejects.toThrow(
      'No dataset is selected.',
    );
  });
});
