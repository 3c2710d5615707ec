import type { Action, Breakpoints, NodeRegistration, RuntimeState } from '@switchyard/contracts';
import { emptyState } from '@switchyard/state';
import { RunFailureCode } from './orchestrator.exception';
import { type StepInput, type StepRoute, nodesToResolve, routeStep, unionOfNext } from './route-step';

const NOW = new Date('2026-01-01T00:00:00.000Z');
const TIMEOUT_MS = 60_000;
const DAY_MS = 24 * 3600_000;

const reg = (name: string, service: string, kind: 'service' | 'human' = 'service'): NodeRegistration => ({
  name,
  service,
  kind,
  tool: false,
  description: name,
  input_schema: {},
  idempotent: true,
  registered_at: NOW.toISOString(),
});

const REGISTRY = new Map([
  ['planner', reg('planner', 'planner')],
  ['calculator', reg('calculator', 'tool-executor')],
  ['http_get', reg('http_get', 'tool-executor')],
  ['reflection', reg('reflection', 'reflection')],
  ['output', reg('output', 'output')],
  ['graph.x', reg('graph.x', 'planner')],
  ['ask_user', reg('ask_user', 'gateway', 'human')],
  ['client_tool', reg('client_tool', 'gateway', 'human')],
]);

let nextId = 0;
function action(node: string, next: string[], extra: Partial<Action> = {}): Action {
  nextId += 1;
  return {
    id: nextId,
    node,
    preparation: '',
    summary: '',
    result: null,
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    next,
    started_at: NOW.toISOString(),
    finished_at: NOW.toISOString(),
    attempt: 1,
    ...extra,
  };
}

/** The state after a planner action that asked for `calls` (what findToolCall reads). */
function stateWithCalls(calls: { name: string; args: Record<string, unknown> }[]): RuntimeState {
  const planner = action('planner', [], {
    result: { content: '', tool_calls: calls.map((c, i) => ({ id: `call_${i}`, ...c })) },
  });
  return { ...emptyState('thread-1', 'run-1'), version: 7, action_history: [[planner]] };
}

function route(
  actions: Action[],
  opts: {
    steps?: number;
    maxSteps?: number;
    state?: RuntimeState;
    nodeTimeouts?: Record<string, number>;
    registrations?: typeof REGISTRY;
    breakpoints?: Breakpoints;
  } = {},
) {
  let ids = 0;
  const input: StepInput = {
    run: {
      id: 'run-1',
      thread_id: 'thread-1',
      steps: opts.steps ?? 3,
      max_steps: opts.maxSteps ?? 100,
      tenant_id: 'tenant-1',
      priority: 'batch',
      node_timeouts: opts.nodeTimeouts ?? null,
      ...(opts.breakpoints ? { input: { breakpoints: opts.breakpoints } } : {}),
    },
    state: opts.state ?? { ...emptyState('thread-1', 'run-1'), version: 7 },
    actions,
    step: 4,
    registrations: opts.registrations ?? REGISTRY,
    taskTimeoutMs: TIMEOUT_MS,
    now: NOW,
    newId: () => `task-${++ids}`,
  };
  return routeStep(input);
}

/** The parts of a route a table row states. */
function summary(r: StepRoute) {
  switch (r.kind) {
    case 'finish':
      return {
        kind: r.kind,
        steps: r.steps,
        status: r.status,
        error: r.error?.code ?? null,
        output: r.output,
      };
    case 'next':
      return {
        kind: r.kind,
        steps: r.steps,
        tasks: r.tasks.map((t) => `${t.node}#${t.seq}.${t.call_index}`),
      };
    case 'waiting':
      return {
        kind: r.kind,
        steps: r.steps,
        tasks: r.tasks.map((t) => `${t.node}#${t.seq}.${t.call_index}`),
        human: r.humanTasks.map((t) => `${t.node}#${t.seq}.${t.call_index}`),
      };
  }
}

describe('task deadlines', () => {
  it("takes the agent's setting for a node, else the node's own, else the deployment's", () => {
    const registrations = new Map(REGISTRY);
    registrations.set('http_get', { ...reg('http_get', 'tool-executor'), timeout_ms: 300_000 });
    registrations.set('reflection', { ...reg('reflection', 'reflection'), timeout_ms: 90_000 });
    const r = route([action('planner', ['calculator', 'http_get', 'reflection', 'output'])], {
      registrations,
      nodeTimeouts: { calculator: 5_000, reflection: 20_000 },
    });
    expect(r.kind).toBe('next');
    const ms = (r as Extract<StepRoute, { kind: 'next' }>).tasks.map((t) => [
      t.node,
      t.deadline.getTime() - NOW.getTime(),
    ]);
    expect(ms).toEqual([
      ['calculator', 5_000],
      ['http_get', 300_000],
      ['reflection', 20_000],
      ['output', TIMEOUT_MS],
    ]);
  });
});

describe(routeStep.name, () => {
  it.each<[string, Action[], { steps?: number; maxSteps?: number }, ReturnType<typeof summary>]>([
    [
      'an empty next ends the run, succeeded',
      [action('output', [])],
      {},
      { kind: 'finish', steps: 4, status: 'succeeded', error: null, output: null },
    ],
    [
      'next ["end"] is the same as []',
      [action('output', ['end'])],
      {},
      { kind: 'finish', steps: 4, status: 'succeeded', error: null, output: null },
    ],
    [
      'a last action with an error fails the run with that error',
      [action('planner', [], { error: { code: 'node_failed', message: 'boom' } })],
      {},
      { kind: 'finish', steps: 4, status: 'failed', error: 'node_failed', output: null },
    ],
    [
      'the last action counts: an earlier error with a clean last one succeeds',
      [action('calculator', [], { error: { code: 'x', message: 'y' } }), action('http_get', [])],
      {},
      { kind: 'finish', steps: 5, status: 'succeeded', error: null, output: null },
    ],
    [
      'reaching max_steps with work left fails the run',
      [action('planner', ['calculator'])],
      { steps: 9, maxSteps: 10 },
      { kind: 'finish', steps: 10, status: 'failed', error: RunFailureCode.MaxStepsExceeded, output: null },
    ],
    [
      'reaching max_steps on the last step still finishes normally',
      [action('output', [])],
      { steps: 9, maxSteps: 10 },
      { kind: 'finish', steps: 10, status: 'succeeded', error: null, output: null },
    ],
    [
      'one next node is one task',
      [action('planner', ['calculator'])],
      {},
      { kind: 'next', steps: 4, tasks: ['calculator#0.0'] },
    ],
    [
      'a node named twice by one action is a fan-out of two calls',
      [action('planner', ['calculator', 'http_get', 'calculator'])],
      {},
      { kind: 'next', steps: 4, tasks: ['calculator#0.0', 'calculator#1.1', 'http_get#2.0'] },
    ],
    [
      'a node named by every action of a fan-out runs once (the join)',
      [action('calculator', ['reflection']), action('http_get', ['reflection'])],
      {},
      { kind: 'next', steps: 5, tasks: ['reflection#0.0'] },
    ],
    [
      'the join keeps the largest count one action asked for',
      [action('a', ['calculator', 'calculator']), action('b', ['calculator', 'output'])],
      {},
      { kind: 'next', steps: 5, tasks: ['calculator#0.0', 'calculator#1.1', 'output#2.0'] },
    ],
    [
      'a node no service registered fails the run',
      [action('planner', ['calculator', 'nope'])],
      {},
      { kind: 'finish', steps: 4, status: 'failed', error: RunFailureCode.UnknownNode, output: null },
    ],
  ])('%s', (_, actions, opts, want) => {
    expect(summary(route(actions, opts))).toEqual(want);
  });

  it('gives the output the answering action returned, and nothing else', () => {
    const answer = { answer: '42', title: 'Sums' };
    expect(route([action('output', [], { result: answer })])).toMatchObject({ output: answer });
    expect(route([action('output', [], { result: { text: 'no answer key' } })])).toMatchObject({
      output: null,
    });
  });

  it("keeps the turn's answer as the output when archive is the last action, never on failure", () => {
    const answer = { answer: '42', title: 'Sums' };
    const out = action('output', ['archive'], { result: answer });
    const state = { ...emptyState('thread-1', 'run-1'), action_history: [[out]] };
    const archive = action('archive', [], { result: { archived: 1 } });
    // The state a step routes on already holds the step's own actions.
    const after = { ...state, action_history: [[out, archive]] };
    expect(route([archive], { state: after })).toMatchObject({ status: 'succeeded', output: answer });
    const failed = action('archive', [], { error: { code: 'node_failed', message: 'boom' } });
    expect(route([failed], { state: { ...state, action_history: [[out, failed]] } })).toMatchObject({
      status: 'failed',
      output: null,
    });
  });

  it('names the action that asked for an unknown node', () => {
    const asker = action('planner', ['nope']);
    expect(route([action('calculator', ['reflection']), asker])).toMatchObject({
      error: {
        code: RunFailureCode.UnknownNode,
        message: `action #${asker.id} (node "planner") asked for node "nope", which no service registered`,
      },
    });
  });

  it("fills a service task: subject, step, version, attempt, deadline, the run's tenant and priority", () => {
    const r = route([action('planner', ['calculator'])]);
    expect(r.kind === 'next' && r.tasks).toEqual([
      {
        id: 'task-1',
        run_id: 'run-1',
        thread_id: 'thread-1',
        turn: 0,
        step: 5,
        seq: 0,
        call_index: 0,
        node: 'calculator',
        subject: 'sy.task.tool-executor.calculator',
        version: 7,
        attempt: 1,
        deadline: new Date(NOW.getTime() + TIMEOUT_MS),
        tenant_id: 'tenant-1',
        priority: 'batch',
      },
    ]);
  });

  it('waits for the user on ask_user, with its question and the default answer schema', () => {
    const state = stateWithCalls([{ name: 'ask_user', args: { question: 'Which city?' } }]);
    const r = route([action('planner', ['ask_user'])], { state });
    expect(summary(r)).toEqual({ kind: 'waiting', steps: 4, tasks: [], human: ['ask_user#0.0'] });
    expect(r).toMatchObject({
      humanTasks: [
        { id: 'task-1', subject: 'human.ask_user', deadline: new Date(NOW.getTime() + 30 * DAY_MS) },
      ],
      waiting: {
        task_id: 'task-1',
        node: 'ask_user',
        question: 'Which city?',
        input_schema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] },
        since: NOW.toISOString(),
      },
    });
  });

  it('records where the answer goes when a graph UserFillUp asks (resume_at)', () => {
    const state = stateWithCalls([
      { name: 'ask_user', args: { question: 'Pick one', resume_at: 'graph.-user-fill-up---menu' } },
    ]);
    const r = route([action('planner', ['ask_user'])], { state });
    expect(r).toMatchObject({ waiting: { question: 'Pick one', resume_at: 'graph.-user-fill-up---menu' } });
  });

  it('waits for the client on client_tool calls, one request for all of them, while service tasks run', () => {
    const state = stateWithCalls([
      { name: 'client_tool', args: { name: 'get_weather', arguments: { city: 'Oslo' } } },
      { name: 'client_tool', args: { name: 'get_time', arguments: {} } },
    ]);
    const r = route([action('planner', ['client_tool', 'client_tool', 'calculator'])], { state });
    expect(summary(r)).toEqual({
      kind: 'waiting',
      steps: 4,
      tasks: ['calculator#2.0'],
      human: ['client_tool#0.0', 'client_tool#1.1'],
    });
    expect(r).toMatchObject({
      waiting: {
        task_id: 'task-1',
        node: 'client_tool',
        question: 'Run the client functions get_weather, get_time and send their results.',
        client_calls: [
          { task_id: 'task-1', id: 'call_0', name: 'get_weather', arguments: { city: 'Oslo' } },
          { task_id: 'task-2', id: 'call_1', name: 'get_time', arguments: {} },
        ],
      },
    });
  });

  it('keeps the ask_user question when client calls come in the same step', () => {
    const state = stateWithCalls([
      { name: 'client_tool', args: { name: 'f', arguments: {} } },
      { name: 'ask_user', args: { question: 'Sure?' } },
    ]);
    const r = route([action('planner', ['client_tool', 'ask_user'])], { state });
    expect(r).toMatchObject({ kind: 'waiting', waiting: { node: 'ask_user', question: 'Sure?' } });
    expect(r.kind === 'waiting' && r.waiting.client_calls).toHaveLength(1);
  });

  it.each<[string, { name: string; args: Record<string, unknown> }[], string]>([
    ['ask_user without a question', [{ name: 'ask_user', args: {} }], 'ask_user'],
    ['client_tool without a planner call', [], 'client_tool'],
    [
      'client_tool without a function name',
      [{ name: 'client_tool', args: { arguments: {} } }],
      'client_tool',
    ],
  ])('fails the run on %s', (_, calls, node) => {
    const r = route([action('planner', [node])], { state: stateWithCalls(calls) });
    expect(r).toMatchObject({
      kind: 'finish',
      status: 'failed',
      error: { code: RunFailureCode.InvalidDelta },
    });
  });
});

describe(nodesToResolve.name, () => {
  it.each<[string, string[][], number, string[]]>([
    ['none when the run ends', [[]], 100, []],
    ['none when the step limit ends it', [['calculator']], 4, []],
    [
      'each next node once, in order',
      [['calculator', 'http_get', 'calculator'], ['reflection']],
      100,
      ['calculator', 'http_get', 'reflection'],
    ],
  ])('%s', (_, nexts, maxSteps, want) => {
    expect(
      nodesToResolve(
        { steps: 3, max_steps: maxSteps },
        nexts.map((next) => ({ next })),
      ),
    ).toEqual(want);
  });
});

describe(unionOfNext.name, () => {
  it.each<[string[][], string[]]>([
    [[], []],
    [[['end']], []],
    [[['a', 'b', 'a']], ['a', 'a', 'b']],
    [[['a'], ['a']], ['a']],
    [
      [
        ['a', 'a'],
        ['b', 'a', 'a', 'a'],
      ],
      ['a', 'a', 'a', 'b'],
    ],
  ])('%j → %j', (nexts, want) => {
    expect(unionOfNext(nexts.map((next) => ({ next })))).toEqual(want);
  });
});

describe('static breakpoints', () => {
  const stopped = (when: 'before' | 'after', nodes: string[], next: string[]) => ({
    kind: 'finish',
    steps: 4,
    status: 'succeeded',
    error: null,
    output: { breakpoint: { when, nodes, next } },
  });

  it.each<[string, Action[], Breakpoints, ReturnType<typeof stopped> | 'next']>([
    [
      'before the planner',
      [action('reflection', ['planner'])],
      { before: ['planner'] },
      stopped('before', ['planner'], ['planner']),
    ],
    [
      'before any node',
      [action('reflection', ['planner'])],
      { before: '*' },
      stopped('before', ['planner'], ['planner']),
    ],
    [
      'before a tool (tools)',
      [action('planner', ['calculator', 'output'])],
      { before: ['tools'] },
      stopped('before', ['calculator'], ['calculator', 'output']),
    ],
    [
      'tools is not the agent’s own nodes',
      [action('reflection', ['planner'])],
      { before: ['tools'] },
      'next',
    ],
    ['tools is not a graph component', [action('graph.begin', ['graph.x'])], { before: ['tools'] }, 'next'],
    [
      'after the planner',
      [action('planner', ['calculator'])],
      { after: ['planner'] },
      stopped('after', ['planner'], ['calculator']),
    ],
    [
      'after any node',
      [action('planner', ['calculator'])],
      { after: '*' },
      stopped('after', ['planner'], ['calculator']),
    ],
    [
      'not before other nodes',
      [action('reflection', ['planner'])],
      { before: ['output'], after: ['output'] },
      'next',
    ],
    [
      'not before what a run with no input continues',
      [action('fork', ['planner'])],
      { before: ['planner'] },
      'next',
    ],
    ['after the start is not a node', [action('start', ['planner'])], { after: '*' }, 'next'],
  ])('%s', (_name, actions, breakpoints, expected) => {
    const r = route(actions, { breakpoints });
    expect(expected === 'next' ? r.kind : summary(r)).toEqual(expected);
  });

  it('an ended run does not stop (nothing is pending)', () => {
    expect(summary(route([action('output', [])], { breakpoints: { after: '*' } }))).toMatchObject({
      status: 'succeeded',
      output: null,
    });
  });

  it('the step limit comes first', () => {
    const r = route([action('reflection', ['planner'])], { steps: 99, breakpoints: { before: '*' } });
    expect(summary(r)).toMatchObject({ status: 'failed', error: RunFailureCode.MaxStepsExceeded });
  });
});
