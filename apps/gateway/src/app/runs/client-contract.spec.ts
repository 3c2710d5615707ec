import type { z } from 'zod';
import {
  AgentViewSchema,
  CreatedRunSchema,
  RunPageSchema,
  RunViewSchema,
  ThreadViewSchema,
} from '@switchyard/contracts';
import { API_ERROR_CODES } from '@switchyard/client';
import { agentView } from '../agents/agents.views';
import { ApiErrorCode } from '../http/api.exception';
import { threadView } from '../threads/threads.views';
import type { RunRecord } from './runs.repository';
import { createdRunView, runView } from './runs.views';

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

const run: RunRecord = {
  id: RUN,
  tenant_id: '00000000-0000-4000-8000-00000000000a',
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
});

describe('the client library and the gateway', () => {
  it('know the same error codes', () => {
    expect([...API_ERROR_CODES].sort()).toEqual(Object.values(ApiErrorCode).sort());
  });
});
