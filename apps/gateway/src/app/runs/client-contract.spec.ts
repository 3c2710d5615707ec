import type { z } from 'zod';
import {
  AgentVersionListSchema,
  AgentVersionSchema,
  AgentViewSchema,
  ApiKeySchema,
  CancelledRunSchema,
  CollectionSchema,
  CreateCollectionSchema,
  CreatedApiKeySchema,
  CreatedRunSchema,
  IngestDocumentsSchema,
  IngestedSchema,
  type NodeRegistration,
  ResumedRunSchema,
  RunPageSchema,
  RunViewSchema,
  SearchRequestSchema,
  SearchResponseSchema,
  TenantSchema,
  ThreadViewSchema,
  ToolListSchema,
  UsagePageSchema,
} from '@switchyard/contracts';
import { API_ERROR_CODES } from '@switchyard/client';
import { KnowledgeStore } from '@switchyard/knowledge';
import { apiKeyView, createdApiKeyView } from '../admin/admin.views';
import { agentVersionView, agentView } from '../agents/agents.views';
import { ApiErrorCode } from '../http/api.exception';
import { type TenantRow, type UsageRow, tenantView, usagePageView } from '../registry/registry.views';
import { decodeUsageCursor } from '../registry/usage-cursor';
import { specDatabase } from '../testing/spec-database';
import { threadView } from '../threads/threads.views';
import { toolListView } from '../tools/tools.views';
import type { RunRecord } from './runs.repository';
import { cancelledRunView, createdRunView, resumedRunView, runView } from './runs.views';

// @switchyard/client's types are the contracts' API schemas (libs/contracts/src/lib/api); the
// gateway's views must answer exactly those shapes. Each view's answer for rows as Postgres
// returns them is parsed with its schema made strict: a field the view drops, renames, retypes
// or adds fails here, so the views, the OpenAPI document and the client cannot drift apart.

type SameKeys<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false;
export const sameRunFields: SameKeys<ReturnType<typeof runView>, z.infer<typeof RunViewSchema>> = true;

const RUN = '00000000-0000-4000-8000-000000000001';
const THREAD = '00000000-0000-4000-8000-000000000002';
const VERSION = '00000000-0000-4000-8000-000000000003';
const AGENT = '00000000-0000-4000-8000-000000000004';
const TENANT = '00000000-0000-4000-8000-00000000000a';

const run: RunRecord = {
  id: RUN,
  tenant_id: TENANT,
  thread_id: THREAD,
  agent_id: 'default',
  agent_version_id: null,
  turn: 1,
  status: 'succeeded',
  priority: 'interactive',
  created_at: new Date('2026-01-01T00:00:00Z'),
  started_at: new Date('2026-01-01T00:00:01Z'),
  finished_at: new Date('2026-01-01T00:00:09Z'),
  steps: 4,
  usage: { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 },
  output: { answer: '14', title: 'Arithmetic', structured: null },
  error: null,
  metadata: { user_id: 'u-1' },
};

describe('the gateway views answer the contracts API schemas', () => {
  it('runView: a finished run, a queued one, a failed one, one stopped at a breakpoint', () => {
    const queued: RunRecord = {
      ...run,
      agent_id: AGENT,
      agent_version_id: VERSION,
      turn: null,
      status: 'queued',
      priority: 'batch',
      started_at: null,
      finished_at: null,
      steps: 0,
      usage: null,
      output: null,
      metadata: null,
    };
    const failed: RunRecord = {
      ...run,
      status: 'failed',
      output: null,
      error: { code: 'max_steps_exceeded', message: 'the run reached its limit of 50 steps' },
    };
    const stopped: RunRecord = {
      ...run,
      output: { breakpoint: { when: 'before', nodes: ['planner'], next: ['planner'] } },
    };
    for (const r of [run, queued, failed, stopped]) {
      expect(RunViewSchema.strict().parse(runView(r))).toEqual(runView(r));
    }
    expect(RunPageSchema.strict().parse({ runs: [runView(run)], next_cursor: null })).toBeDefined();
  });

  it('runView: a record that breaks the schema fails the parse', () => {
    const view = runView({ ...run, thread_id: 'not-a-uuid', output: { answer: 14 } });
    expect(
      RunViewSchema.safeParse(view)
        .error?.issues.map((i) => i.path.join('.'))
        .sort(),
    ).toEqual(['output.answer', 'thread_id']);
    expect(RunViewSchema.strict().safeParse({ ...runView(run), extra: 1 }).success).toBe(false);
  });

  it('createdRunView', () => {
    const created = createdRunView({ id: RUN, thread_id: THREAD, created_at: new Date() });
    expect(CreatedRunSchema.strict().parse(created)).toEqual(created);
  });

  it('threadView: a new thread and one with a run under way', () => {
    const base = {
      id: THREAD,
      agent_id: 'default',
      created_at: new Date('2026-01-01T00:00:00Z'),
      turns: 0,
      version: 0,
      active_run_id: null,
      title: null,
    };
    for (const t of [base, { ...base, turns: 2, version: 9, active_run_id: RUN, title: 'Arithmetic' }]) {
      expect(ThreadViewSchema.strict().parse(threadView(t))).toEqual(threadView(t));
    }
  });

  it('agentView: a published agent, a graph agent (its DSL stored as text), one never published', () => {
    const agent = {
      id: AGENT,
      name: 'support',
      draft: { name: 'support', max_steps: 50, tools: ['web_search'] },
      created_at: new Date('2026-01-01T00:00:00Z'),
      updated_at: new Date('2026-01-02T00:00:00Z'),
      latest_version_id: VERSION,
      latest_version: 3,
    };
    const graph = {
      ...agent,
      draft: {
        name: 'canvas',
        max_steps: 50,
        kind: 'graph' as const,
        dsl: JSON.stringify({ components: { begin: { obj: { component_name: 'Begin', params: {} } } } }),
      },
    };
    const unpublished = { ...agent, latest_version_id: null, latest_version: null };
    for (const a of [agent, graph, unpublished]) {
      expect(AgentViewSchema.strict().parse(agentView(a))).toEqual(JSON.parse(JSON.stringify(agentView(a))));
    }
    expect(agentView(graph).draft.dsl).toMatchObject({ components: { begin: {} } });
  });

  it('cancelledRunView and resumedRunView', () => {
    for (const already of [false, true]) {
      expect(CancelledRunSchema.strict().parse(cancelledRunView(RUN, already))).toEqual(
        cancelledRunView(RUN, already),
      );
    }
    expect(cancelledRunView(RUN, true).status).toBe('cancelled');
    expect(ResumedRunSchema.strict().parse(resumedRunView(RUN))).toEqual(resumedRunView(RUN));
    expect(CancelledRunSchema.safeParse(cancelledRunView('run-1', false)).success).toBe(false);
  });

  it('agentVersionView: a version of a graph agent (its DSL stored as text), in its list', () => {
    const row = {
      id: VERSION,
      version: 2,
      config: {
        name: 'canvas',
        max_steps: 50,
        kind: 'graph' as const,
        dsl: JSON.stringify({ components: { begin: { obj: { component_name: 'Begin', params: {} } } } }),
      },
      created_at: new Date('2026-01-03T00:00:00Z'),
    };
    const view = agentVersionView(AGENT, row);
    expect(AgentVersionSchema.strict().parse(view)).toEqual(JSON.parse(JSON.stringify(view)));
    expect(view.config.dsl).toMatchObject({ components: { begin: {} } });
    expect(AgentVersionListSchema.strict().parse({ versions: [view] })).toBeDefined();
    // The list's fields in the order it has always sent them.
    expect(Object.keys(view)).toEqual(['id', 'version', 'config', 'created_at', 'agent_id']);
  });

  it("toolListView: shared tools and the tenant's own, not another tenant's, not a node that is no tool", () => {
    const OTHER = '00000000-0000-4000-8000-00000000000b';
    const node = (name: string, extra: Partial<NodeRegistration> = {}): NodeRegistration => ({
      name,
      service: 'tool-executor',
      kind: 'service',
      tool: true,
      description: `the ${name} tool`,
      input_schema: { type: 'object', properties: { q: { type: 'string' } } },
      idempotent: true,
      registered_at: '2026-01-01T00:00:00.000Z',
      ...extra,
    });
    const nodes = [
      node('http_get'),
      node('present_table', { types: ['output'] }),
      node('ask_user', { kind: 'human', service: 'run-orchestrator', tool: false }),
      node('mcp.mine.search', { tenant_id: TENANT, timeout_ms: 60_000 }),
      node('mcp.theirs.search', { tenant_id: OTHER }),
    ];
    const view = toolListView(nodes, TENANT);
    expect(ToolListSchema.parse(view)).toEqual(view);
    for (const tool of view.tools) {
      expect(ToolListSchema.shape.tools.element.strict().parse(tool)).toEqual(tool);
    }
    expect(view.tools.map((t) => [t.name, t.types])).toEqual([
      ['http_get', ['call']],
      ['present_table', ['output']],
      ['mcp.mine.search', ['call']],
    ]);
  });

  it('tenantView, apiKeyView and createdApiKeyView: a new tenant, a live key, a revoked one', () => {
    const tenant: TenantRow = {
      id: TENANT,
      name: 'acme',
      token_budget: '1000000',
      tokens_used: '1234',
      created_at: new Date('2026-01-01T00:00:00Z'),
      rate_limit_per_second: null,
      rate_limit_burst: null,
      max_active_runs: 10,
      max_running_runs: null,
      memory_embedding_model: null,
      weight: 1,
    };
    for (const t of [tenant, { ...tenant, token_budget: null, weight: 2.5 }]) {
      expect(TenantSchema.strict().parse(tenantView(t))).toEqual(tenantView(t));
    }
    const key = {
      id: '00000000-0000-4000-8000-00000000000c',
      prefix: 'sy_live_abcd',
      label: null,
      created_at: new Date('2026-01-01T00:00:00Z'),
      revoked_at: null,
    };
    const revoked = { ...key, label: 'ci', revoked_at: new Date('2026-01-02T00:00:00Z') };
    for (const k of [key, revoked]) {
      expect(ApiKeySchema.strict().parse(apiKeyView(k))).toEqual(apiKeyView(k));
    }
    const created = createdApiKeyView(key, 'sy_live_abcdefgh');
    expect(CreatedApiKeySchema.strict().parse(created)).toEqual(created);
  });

  it('usagePageView: a page with more after it, and the last page', () => {
    const row = (id: number): UsageRow => ({
      id: String(id),
      tenant_id: TENANT,
      business_id: id === 1 ? 'shop-eu' : null,
      run_id: id === 3 ? null : RUN,
      action_id: id === 3 ? null : id,
      model_id: id === 3 ? null : '00000000-0000-4000-8000-00000000000d',
      key_id: null,
      node: 'planner',
      prompt_tokens: 100,
      completion_tokens: 20,
      total_tokens: 120,
      cost: '0.000150',
      created_at: new Date(`2026-01-01T00:00:0${id}Z`),
      created_at_text: `2026-01-01T00:00:0${id}.000001Z`,
    });
    const more = usagePageView([row(1), row(2), row(3)], 2);
    expect(UsagePageSchema.strict().parse(more)).toEqual(more);
    expect(decodeUsageCursor(more.next_cursor ?? '')).toEqual({
      created_at: row(2).created_at_text,
      id: '2',
    });
    const last = usagePageView([row(3)], 2);
    expect(UsagePageSchema.strict().parse(last)).toEqual({ usage: last.usage, next_cursor: null });
    for (const u of [...more.usage, ...last.usage]) {
      expect(UsagePageSchema.shape.usage.element.strict().parse(u)).toEqual(u);
    }
  });
});

// A collection's answers are the knowledge store's own (the gateway passes them on), so they are
// read from the real store against the real Postgres.
describe('the knowledge store answers the contracts collection schemas', () => {
  const pg = specDatabase('client-contract-spec');
  jest.setTimeout(30_000);

  it('a created collection, read back, ingested into and searched', async () => {
    const tenantId = await pg.tenant();
    const store = new KnowledgeStore(pg.ds);
    const body = CreateCollectionSchema.parse({
      name: 'manuals',
      index_sets: [{ index_name: 'main' }, { index_name: 'small', chunk_size: 200, chunk_overlap: 20 }],
    });
    const created = await store.createCollection(tenantId, body);
    const read = await store.getCollection(tenantId, created.id);
    for (const block of [created, read]) {
      expect(CollectionSchema.strict().parse(block)).toEqual(block);
      for (const item of block?.indexingList ?? []) {
        expect(CollectionSchema.shape.indexingList.element.strict().parse(item)).toEqual(item);
      }
    }
    const docs = IngestDocumentsSchema.parse({
      documents: [
        { text: 'Reset the router by holding its button for ten seconds.', metadata: { page: 4 } },
        { text: 'The warranty covers two years from the date of purchase.' },
      ],
    });
    const ingested = await store.ingest(tenantId, created.id, docs);
    expect(IngestedSchema.strict().parse({ ingested: ingested?.ingested })).toEqual({ ingested: 2 });
    const q = SearchRequestSchema.parse({ query: 'how do I reset the router', top_k: 3 });
    const results = await store.searchCollection(tenantId, created.id, q.query, {
      mode: q.mode,
      topK: q.top_k,
      threshold: q.threshold,
    });
    expect(results?.length).toBeGreaterThan(0);
    expect(SearchResponseSchema.strict().parse({ results })).toEqual({ results });
    for (const r of results ?? []) {
      expect(SearchResponseSchema.shape.results.element.strict().parse(r)).toEqual(r);
    }
  });
});

describe('the client library and the gateway', () => {
  it('know the same error codes', () => {
    expect([...API_ERROR_CODES].sort()).toEqual(Object.values(ApiErrorCode).sort());
  });
});
