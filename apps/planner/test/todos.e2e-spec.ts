import type { Action, PlannerResult, Todo } from '@switchyard/contracts';
import { TestStack, waitFor } from '@switchyard/testing';

// The planner's todo list end to end: an upfront plan with dependencies and priorities, two todos
// worked per step, a tool that keeps failing (retried with back-off, then failed), a todo blocked
// by it, and an answer that still comes and says what failed.

const BACKOFF_MS = 300;
let stack: TestStack;

beforeAll(async () => {
  stack = await TestStack.start({
    script: 'apps/planner/test/fixtures/todos.script.json',
    env: {
      SWITCHYARD_PLANNER_MAX_PARALLEL: '2',
      SWITCHYARD_TODO_RETRY_BASE_MS: String(BACKOFF_MS),
      SWITCHYARD_TODO_RETRY_MAX_MS: '5000',
    },
  });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

interface RunBody {
  status: string;
  thread_id: string;
  output: { answer: string } | null;
  error: { code: string; message: string } | null;
}

async function run(prompt: string): Promise<{ id: string; body: RunBody; actions: Action[] }> {
  const res = await stack.api('POST', '/v1/runs', { input: { prompt } });
  expect(res.status).toBe(202);
  const id = res.body.run_id as string;
  let body: RunBody | undefined;
  await waitFor(
    `run ${id} to end`,
    async () => {
      body = (await stack.api('GET', `/v1/runs/${id}`)).body as RunBody;
      return ['succeeded', 'failed', 'cancelled'].includes(body.status);
    },
    60_000,
  );
  const actions = (await stack.api('GET', `/v1/runs/${id}/actions`)).body.actions as Action[];
  return { id, body: body!, actions };
}

async function todosAt(threadId: string, version?: number): Promise<Todo[]> {
  const q = version === undefined ? '' : `?version=${version}`;
  const state = await stack.api('GET', `/v1/threads/${threadId}/state${q}`);
  expect(state.status).toBe(200);
  return state.body.todos[state.body.turn] as Todo[];
}

/** The todo ids each planner step dispatched, with the step's action. */
function dispatches(actions: Action[], todos: Todo[]): { action: Action; ids: string[] }[] {
  return actions
    .filter((a) => a.node === 'planner')
    .map((action) => {
      const calls = (action.result as PlannerResult).tool_calls;
      const ids = calls.map((c) => todos.find((t) => t.call_ids.includes(c.id))?.id ?? `?${c.id}`);
      return { action, ids };
    });
}

describe('a planned turn: dependencies, priority, retries, a blocked todo', () => {
  let result: Awaited<ReturnType<typeof run>>;
  let todos: Todo[];
  const byId = (id: string) => todos.find((t) => t.id === id)!;

  beforeAll(async () => {
    result = await run('[todos] work through the plan');
    todos = await todosAt(result.body.thread_id);
  }, 90_000);

  it('succeeds, and the answer says what failed', () => {
    expect(result.body.error).toBeNull();
    expect(result.body.status).toBe('succeeded');
    // The answer repeats the prompt's failed-tasks section: both failed todos with their reasons,
    // and nothing that worked.
    const answer = result.body.output?.answer ?? '';
    expect(answer).toMatch(
      /^Done\. What failed: - \[task-bad\] divide 1 by 0: math_error: [^\n]*zero[^\n]*attempt 3\)/,
    );
    expect(answer).toMatch(/\n- \[task-report\] report the quotient: [^\n]*dependency "bad" failed/);
    expect(answer).not.toMatch(/task-(square|sum|note)/);
    const last = result.actions.filter((a) => a.node === 'planner').at(-1)!;
    expect(last.next).toEqual(['output']);
    expect((last.result as PlannerResult).output_tools).toEqual(['output']);
  });

  it('keeps the plan as todos with the seed-003 shape and critical path lengths from the graph', () => {
    expect(todos.map((t) => t.id)).toEqual(['square', 'bad', 'sum', 'report', 'note']);
    expect(Object.fromEntries(todos.map((t) => [t.id, t.critical_path_length]))).toEqual({
      square: 1,
      bad: 1,
      sum: 0,
      report: 0,
      note: 0,
    });
    expect(byId('sum')).toMatchObject({
      dependencies: ['square'],
      priority: 9,
      suggested_tools: ['calculator'],
    });
    expect(byId('bad')).toMatchObject({ max_retry: 2, execution_tips: 'use the calculator' });
  });

  it('completes the todos that worked, with completion details', () => {
    expect(byId('square')).toMatchObject({
      status: 'completed',
      completion_details: { tool_used: 'calculator', output: { expression: '7*7', value: 49 } },
    });
    expect(byId('sum').completion_details?.output).toEqual({ expression: '49+1', value: 50 });
    // A todo the model answered without a tool is completed by the planner with its reply.
    expect(byId('note')).toMatchObject({
      status: 'completed',
      call_ids: [],
      completion_details: { tool_used: 'planner', output: 'A note without tools.' },
    });
  });

  it('dispatches by priority then critical path, never before the dependencies are completed', async () => {
    const steps = dispatches(result.actions, todos);
    // bad (priority 8) first, then square over note: same priority, longer critical path.
    expect(steps[0].ids).toEqual(['bad', 'square']);
    for (const { action, ids } of steps) {
      const before = await todosAt(result.body.thread_id, action.id - 1);
      for (const id of ids) {
        for (const dep of byId(id).dependencies) {
          expect({ todo: id, dep, status: before.find((t) => t.id === dep)?.status }).toEqual({
            todo: id,
            dep,
            status: 'completed',
          });
        }
      }
    }
    const flat = steps.flatMap((s) => s.ids);
    expect(flat.indexOf('square')).toBeLessThan(flat.indexOf('sum'));
    expect(flat).not.toContain('report');
    expect(byId('report').call_ids).toEqual([]);
  });

  it('retries the failing tool up to max_retry with the errors in error_history, then fails it', () => {
    const bad = byId('bad');
    expect(bad.status).toBe('failed');
    expect(bad.retry).toBe(2);
    expect(bad.call_ids).toHaveLength(3);
    expect(bad.error_history.map((e) => [e.attempt, e.retry_count, e.tool_used])).toEqual([
      [1, 1, 'calculator'],
      [2, 2, 'calculator'],
      [3, 2, 'calculator'],
    ]);
    for (const e of bad.error_history) {
      expect(e.error).toMatch(/^math_error: .*zero/);
    }
    // Each retry waited for its back-off (300 ms, then 600 ms) after the failure.
    const steps = dispatches(result.actions, todos).filter((s) => s.ids.includes('bad'));
    expect(steps).toHaveLength(3);
    for (const k of [1, 2]) {
      const failedAt = Date.parse(bad.error_history[k - 1].timestamp);
      expect(Date.parse(steps[k].action.finished_at)).toBeGreaterThanOrEqual(
        failedAt + BACKOFF_MS * 2 ** (k - 1),
      );
    }
  });

  it('fails the todo blocked by the failed one, with the reason', () => {
    expect(byId('report')).toMatchObject({ status: 'failed' });
    expect(byId('report').error_history).toEqual([
      expect.objectContaining({ attempt: 0, error: expect.stringContaining('dependency "bad" failed') }),
    ]);
  });

  it('reflection writes its verdict, relevance and context entries', () => {
    const reflections = result.actions.filter((a) => a.node === 'reflection');
    expect(reflections.length).toBeGreaterThanOrEqual(3);
    for (const r of reflections) {
      expect(r.result).toEqual(
        expect.objectContaining({
          conclusion: expect.any(String),
          match: expect.stringMatching(/^(full|part|none)$/),
          is_finished: expect.any(Boolean),
          is_sufficient: expect.any(Boolean),
        }),
      );
      expect(r.next).toEqual(['planner']);
      expect(r.relevance).toBeGreaterThanOrEqual(0);
    }
    const entries = reflections.flatMap((r) => r.context ?? []);
    expect(entries).toContainEqual(
      expect.objectContaining({
        type: 'data',
        important: true,
        usage_type: 'output',
        content: expect.objectContaining({ todo: 'sum', results: [{ expression: '49+1', value: 50 }] }),
      }),
    );
    expect(entries).toContainEqual(
      expect.objectContaining({
        type: 'text',
        usage_type: 'analysis',
        content: expect.stringContaining('Todo bad'),
      }),
    );
  });
});

describe('a retry that is not due yet', () => {
  it('waits for retry_after, retries once (max_retry 1), fails the todo and still answers', async () => {
    const r = await run('[retry-wait] divide by zero twice');
    expect(r.body.status).toBe('succeeded');
    expect(r.body.output?.answer).toMatch(
      /^Done\. What failed: - \[task-only\] divide 2 by 0: math_error: [^\n]*zero/,
    );
    const [only] = await todosAt(r.body.thread_id);
    expect(only).toMatchObject({ id: 'only', status: 'failed', retry: 1 });
    expect(only.error_history).toHaveLength(2);
    const planners = r.actions.filter((a) => a.node === 'planner');
    // plan + attempt 1, (wait) attempt 2, answer
    expect(planners.map((a) => a.next)).toEqual([['calculator'], ['calculator'], ['output']]);
    expect(planners[1].preparation).toMatch(/Waited \d+ ms for a retry/);
    expect(Date.parse(planners[1].finished_at)).toBeGreaterThanOrEqual(
      Date.parse(only.error_history[0].timestamp) + BACKOFF_MS,
    );
  });
});

describe('a result that does not match its todo', () => {
  it("counts reflection's match 'none' as a failed attempt, retries, then fails the todo", async () => {
    const r = await run('[mismatch] compute six times seven');
    expect(r.body.status).toBe('succeeded');
    const [wrong] = await todosAt(r.body.thread_id);
    expect(wrong).toMatchObject({ id: 'wrong', status: 'failed', retry: 1 });
    expect(wrong.call_ids).toHaveLength(2);
    expect(wrong.error_history.map((e) => [e.attempt, e.tool_used, e.error])).toEqual([
      [1, 'calculator', 'unmatched_result: 36 is 6*6, not the asked 6*7'],
      [2, 'calculator', 'unmatched_result: 36 is 6*6, not the asked 6*7'],
    ]);
    const reflections = r.actions.filter((a) => a.node === 'reflection');
    expect(reflections).toHaveLength(2);
    for (const a of reflections) {
      expect(a.result).toMatchObject({ match: 'none', is_finished: false, is_sufficient: false });
      expect(a.relevance).toBe(0);
    }
    expect(r.body.output?.answer).toMatch(
      /^Done\. What failed: - \[task-wrong\] compute 6\*7: unmatched_result/,
    );
  });
});

describe('a plan whose dependencies form a cycle', () => {
  it('is refused with the reason fed back; the run fails naming the cycle', async () => {
    const r = await run('[cycle] plan in circles');
    expect(r.body.status).toBe('failed');
    expect(r.body.error?.message).toContain('the dependencies form a cycle: a -> b -> a');
    // Asked twice: the second request carried the first reply's problem.
    const requests = (await (await fetch(`${stack.llmUrl}/_requests`)).json()) as { rule?: string }[];
    expect(requests.filter((q) => q.rule === 'plan-cycle')).toHaveLength(2);
  });
});
