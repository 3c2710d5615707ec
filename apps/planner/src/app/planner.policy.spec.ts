import { type Action, type PlannerResult, type Todo, TodoSchema, type ToolCall } from '@switchyard/contracts';
import {
  adhocTodos,
  closingOutputTool,
  dispatchedTodo,
  finishReason,
  latestVerdict,
  outputCandidates,
  presentTodo,
  presentedWith,
  retryWaitMs,
  settleHumanAnswers,
  todosPatch,
  turnMode,
  uniqueCalls,
} from './planner.policy';

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-01T00:00:02.500Z';
let nextId = 1;

function action(node: string, result: unknown = {}, extra: Partial<Action> = {}): Action {
  return {
    id: nextId++,
    node,
    preparation: '',
    summary: `${node} ran`,
    result,
    usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 },
    next: [],
    started_at: T0,
    finished_at: T1,
    attempt: 1,
    ...extra,
  } as Action;
}

const planner = (r: Partial<PlannerResult>): Action =>
  action('planner', { content: '', tool_calls: [], ...r });
const call = (id: string, name: string, args: Record<string, unknown> = {}): ToolCall => ({ id, name, args });
const todo = (id: string, extra: Partial<Todo> = {}): Todo =>
  TodoSchema.parse({ id, task: `task ${id}`, status: 'pending', ...extra });

describe('turnMode', () => {
  it('is the mode the first planner step recorded', () => {
    expect(turnMode([planner({ mode: 'plan' }), planner({ mode: 'adhoc' })])).toBe('plan');
    expect(turnMode([planner({ mode: 'adhoc' }), planner({ mode: 'plan' })])).toBe('adhoc');
  });

  it('is ad hoc without a planner step, a recorded mode or a readable result', () => {
    expect(turnMode([])).toBe('adhoc');
    expect(turnMode([planner({})])).toBe('adhoc');
    expect(turnMode([action('planner', 'not a result')])).toBe('adhoc');
  });
});

describe('presentedWith', () => {
  const presenting = planner({ tool_calls: [call('c1', 'slides')], output_tools: ['slides'] });

  it('names the registry output tool the latest planner step called, once its action came back', () => {
    expect(presentedWith([presenting, action('slides')])).toBe('slides');
    expect(
      presentedWith([presenting, action('slides', null, { error: { code: 'x', message: 'y' } } as never)]),
    ).toBe('slides');
  });

  it('is undefined while the tool has not come back, or for a built-in or uncalled output tool', () => {
    expect(presentedWith([presenting])).toBeUndefined();
    expect(presentedWith([])).toBeUndefined();
    expect(
      presentedWith([
        planner({ tool_calls: [call('c1', 'output')], output_tools: ['output'] }),
        action('output'),
      ]),
    ).toBeUndefined();
    expect(presentedWith([planner({ output_tools: ['slides'] }), action('slides')])).toBeUndefined();
  });

  it('looks only after the latest planner step', () => {
    expect(presentedWith([presenting, action('slides'), planner({})])).toBeUndefined();
  });
});

describe('closingOutputTool and outputCandidates', () => {
  it('closes with the agent’s first built-in output tool, output when it names none', () => {
    expect(closingOutputTool(['slides', 'output_structured', 'output'])).toBe('output_structured');
    expect(closingOutputTool(['slides'])).toBe('output');
    expect(closingOutputTool(undefined)).toBe('output');
  });

  it('offers the agent’s output tools that exist, or output and every registry one', () => {
    const external = new Set(['slides', 'chart']);
    expect(outputCandidates(['output_structured', 'gone', 'chart'], external)).toEqual([
      'output_structured',
      'chart',
    ]);
    expect(outputCandidates([], external)).toEqual(['output', 'slides', 'chart']);
    expect(outputCandidates(undefined, new Set())).toEqual(['output']);
  });
});

describe('latestVerdict', () => {
  const verdict = { is_finished: true, is_sufficient: false };

  it('is reflection’s result when it came after the latest planner step', () => {
    expect(latestVerdict([planner({}), action('search'), action('reflection', verdict)])).toEqual(verdict);
  });

  it('is undefined when a planner step came after it, or there is none', () => {
    expect(latestVerdict([action('reflection', verdict), planner({})])).toBeUndefined();
    expect(latestVerdict([planner({}), action('search')])).toBeUndefined();
  });
});

describe('settleHumanAnswers', () => {
  const now = new Date('2026-01-01T00:00:05.000Z');

  it('completes the todo of the k-th call with the k-th answer of the human node', () => {
    const todos = [
      todo('1', { status: 'processing', call_ids: ['a1'] }),
      todo('2', { status: 'processing', call_ids: ['a2'] }),
    ];
    const actions = [
      planner({ tool_calls: [call('a1', 'ask_user'), call('a2', 'ask_user')] }),
      action('ask_user', { answer: 'blue' }),
    ];
    const settled = settleHumanAnswers(todos, actions, now);
    expect(settled[0]).toMatchObject({
      status: 'completed',
      completion_details: { tool_used: 'ask_user', execution_time: 2.5, output: { answer: 'blue' } },
    });
    expect(settled[1]).toBe(todos[1]);
    expect(todos[0].status).toBe('processing');
  });

  it('files a client function’s answer under the function’s name', () => {
    const todos = [todo('1', { status: 'processing', call_ids: ['c1'] })];
    const actions = [
      planner({ tool_calls: [call('c1', 'client_tool', { name: 'get_weather', arguments: {} })] }),
      action('client_tool', 'sunny'),
    ];
    expect(settleHumanAnswers(todos, actions, now)[0].completion_details?.tool_used).toBe('get_weather');
  });

  it('leaves the todos as they are without a planner step or an answer to a processing todo', () => {
    const todos = [todo('1', { status: 'completed', call_ids: ['a1'] })];
    expect(settleHumanAnswers(todos, [action('ask_user')], now)).toBe(todos);
    const actions = [planner({ tool_calls: [call('a1', 'ask_user')] }), action('ask_user', { answer: 'x' })];
    expect(settleHumanAnswers(todos, actions, now)).toBe(todos);
  });
});

describe('retryWaitMs', () => {
  it('waits until the retry is due plus a margin, at most the maximum', () => {
    const now = new Date(T0);
    expect(retryWaitMs(new Date(now.getTime() + 100), now, 10_000)).toBe(105);
    expect(retryWaitMs(new Date(now.getTime() + 60_000), now, 10_000)).toBe(10_000);
  });
});

describe('uniqueCalls and dispatchedTodo', () => {
  it('renames a call whose id an earlier todo’s call took, and remembers the ids', () => {
    const seen = new Set(['x']);
    expect(uniqueCalls([call('x', 'search'), call('y', 'search')], '2', seen).map((c) => c.id)).toEqual([
      'x_2',
      'y',
    ]);
    expect([...seen]).toEqual(['x', 'x_2', 'y']);
  });

  it('marks the todo processing with its calls’ ids, clearing its retry time', () => {
    const t = todo('1', { status: 'pending', retry_after: T0, call_ids: ['old'] });
    expect(dispatchedTodo(t, [call('new', 'search')])).toMatchObject({
      status: 'processing',
      retry_after: null,
      call_ids: ['old', 'new'],
    });
  });
});

describe('finishReason', () => {
  it('counts settled todos, or says what is still open', () => {
    expect(finishReason([todo('1', { status: 'completed' }), todo('2', { status: 'failed' })])).toBe(
      'All todos are settled (1 completed, 1 failed)',
    );
    expect(finishReason([todo('1', { status: 'completed' }), todo('2', { status: 'pending' })])).toBe(
      'Nothing more can progress (1 completed, 0 failed, 1 open)',
    );
  });
});

describe('adhocTodos', () => {
  it('numbers the calls after the turn’s todos, skipping ids taken, without automatic retries', () => {
    const made = adhocTodos([todo('1'), todo('3')], [call('c1', 'search', { q: 'a' }), call('c2', 'calc')]);
    expect(made.map((t) => t.id)).toEqual(['4', '5']);
    expect(adhocTodos([todo('1'), todo('3')], [call('c1', 'search')]).map((t) => t.id)).toEqual(['4']);
    expect(adhocTodos([todo('2')], [call('c1', 'search'), call('c2', 'calc')]).map((t) => t.id)).toEqual([
      '3',
      '4',
    ]);
    expect(adhocTodos([todo('x')], [call('c1', 'search')]).map((t) => t.id)).toEqual(['2']);
    expect(made[0]).toMatchObject({
      task: 'search {"q":"a"}',
      status: 'processing',
      suggested_tools: ['search'],
      max_retry: 0,
      call_ids: ['c1'],
    });
  });
});

describe('presentTodo', () => {
  it('files the presenting call under present, or the first free present_N', () => {
    const c = call('p1', 'slides');
    expect(presentTodo([], c)).toMatchObject({
      id: 'present',
      task: 'Present the answer with slides',
      status: 'processing',
      max_retry: 0,
      call_ids: ['p1'],
    });
    expect(presentTodo([todo('present'), todo('present_2')], c).id).toBe('present_3');
  });
});

describe('todosPatch', () => {
  it('replaces the turn’s todos only when the step changed them', () => {
    const before = [todo('1')];
    expect(todosPatch(2, before, [todo('1')])).toEqual([]);
    const after = [todo('1', { status: 'completed' })];
    expect(todosPatch(2, before, after)).toEqual([{ op: 'replace', path: '/todos/2', value: after }]);
  });
});
