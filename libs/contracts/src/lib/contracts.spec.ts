import type { z } from 'zod';
import {
  EVENT_TYPES,
  EventPayloadSchemas,
  type EventType,
  actionEventPayload,
  isTerminal,
  RUN_STATUSES,
} from './events.schema';
import {
  DeltaMessageSchema,
  RunCancelMessageSchema,
  RunFailMessageSchema,
  RunStartMessageSchema,
  TaskMessageSchema,
} from './messages.schema';
import { NodeRegistrationSchema } from './node-registry.schema';
import {
  type Action,
  ActionSchema,
  CommittedDeltaSchema,
  JsonPatchOperationSchema,
  NodeNameSchema,
  type RuntimeState,
  RuntimeStateSchema,
  StateDeltaSchema,
  ZERO_USAGE,
} from './state.schema';
import { cancelSubject, deltaSubject, STREAMS, SUBJECTS, taskFilter, taskSubject } from './subjects';
import { findToolCall, PlannerResultSchema, type ToolCall } from './tool-call';
import { describeZodError } from './zod-error.util';

const THREAD = '3f2b6c1e-8a4d-4c7e-9b1a-0d2e3f4a5b6c';
const RUN = '7a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const TASK = 'c0a80101-0000-4000-a000-000000000001';
const TENANT = 'e1d2c3b4-a5f6-4789-8abc-def012345678';
const NOW = '2024-05-01T10:00:00.000Z';

type Json = Record<string, unknown>;

const action = (overrides: Partial<Action> = {}): Action => ({
  id: 3,
  node: 'calculator',
  preparation: 'parsed the expression',
  summary: '2 + 2 = 4',
  result: { value: 4 },
  context: [{ type: 'text', content: '4', important: true, usage_type: 'output' }],
  relevance: 0.8,
  usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
  next: ['reflection'],
  started_at: NOW,
  finished_at: NOW,
  attempt: 1,
  ...overrides,
});

const draft = (): Json => {
  const { id: _id, ...rest } = action();
  return rest;
};

const runtimeState = (): RuntimeState => ({
  thread_id: THREAD,
  run_id: RUN,
  turn: 0,
  version: 2,
  prompts: ['what is 2 + 2?'],
  user_context: { locale: 'en' },
  memory: [{ thread_id: THREAD, turn: 0, content: 'earlier', score: 0.4 }],
  output_style: 'short',
  scenario: 'math',
  output_structure: [{ id: 'answer', expected: 'a number', content: null, type: 'number' }],
  task_goals: ['add numbers'],
  origin_files: [{ name: 'a.csv', type: 'text/csv', mapping: { provider: 'local', path: '/data/a.csv' } }],
  preprocessed_files: { documents: {}, tables: { 'a.csv': { rows: 2 } }, other_files: {} },
  todos: [
    [
      {
        id: 't1',
        task: 'add',
        status: 'completed',
        dependencies: [],
        suggested_tools: ['calculator'],
        priority: 5,
        execution_tips: '',
        success_criteria: '',
        critical_path_length: 0,
        retry: 0,
        max_retry: 3,
        retry_after: null,
        error_history: [],
        completion_details: {
          completed_at: '2026-01-01T00:00:02.000Z',
          tool_used: 'calculator',
          execution_time: 0.1,
          output: { value: 4 },
        },
        call_ids: ['call_1'],
      },
    ],
  ],
  action_history: [[action({ id: 1, node: 'start', next: ['intake'] }), action({ id: 2 })]],
  chat_history: [{ role: 'user', content: 'what is 2 + 2?' }],
  usage: [{ prompt_tokens: 20, completion_tokens: 4, total_tokens: 24 }],
});

const taskMessage = (): Json => ({
  task_id: TASK,
  run_id: RUN,
  thread_id: THREAD,
  turn: 0,
  node: 'calculator',
  version: 4,
  step: 2,
  call_index: 1,
  attempt: 1,
  deadline: NOW,
  trace: { traceparent: '00-abc-def-01' },
});

const deltaMessage = (): Json => ({
  task_id: TASK,
  run_id: RUN,
  node: 'calculator',
  base_version: 4,
  delta: { action: draft(), patch: [{ op: 'add', path: '/preprocessed_files/tables/x', value: 1 }] },
});

const registration = (): Json => ({
  name: 'calculator',
  service: 'tool-executor',
  kind: 'service',
  tool: true,
  description: 'Evaluates arithmetic',
  input_schema: { type: 'object', properties: { expression: { type: 'string' } } },
  idempotent: true,
  registered_at: NOW,
});

/** A deep copy of `base` with `path` set to `value` (or removed when value is REMOVE). */
const REMOVE = Symbol('remove');
function withValue(base: unknown, path: (string | number)[], value: unknown): unknown {
  const copy = structuredClone(base) as Json;
  let at = copy as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) {
    at = at[key] as Record<string | number, unknown>;
  }
  const last = path[path.length - 1];
  if (value === REMOVE) {
    delete at[last];
  } else {
    at[last] = value;
  }
  return copy;
}

/** The paths that describeZodError names for a refused value (`a.b: message; c: message`). */
function refusal(schema: z.ZodType, value: unknown): string[] {
  const result = schema.safeParse(value);
  if (result.success) {
    throw new Error(`expected ${JSON.stringify(value)} to be refused`);
  }
  return describeZodError(result.error)
    .split('; ')
    .map((issue) => issue.slice(0, issue.indexOf(': ')));
}

/** [description, path to change, new value (REMOVE deletes), the path the error must name] */
type InvalidCase = [string, (string | number)[], unknown, string];

describe('ActionSchema', () => {
  it('parses a complete action', () => {
    expect(ActionSchema.parse(action())).toEqual(action());
  });

  it('parses a minimal action (no context, relevance or error)', () => {
    const { context: _c, relevance: _r, ...minimal } = action();

    expect(ActionSchema.safeParse(minimal).success).toBe(true);
  });

  it.each<InvalidCase>([
    ['missing node', ['node'], REMOVE, 'node'],
    ['missing usage', ['usage'], REMOVE, 'usage'],
    ['a summary that is no string', ['summary'], 42, 'summary'],
    ['id 0', ['id'], 0, 'id'],
    ['a fractional id', ['id'], 1.5, 'id'],
    ['the node name "Bad Name"', ['node'], 'Bad Name', 'node'],
    ['a bad node name in next', ['next'], ['reflection', 'Bad Name'], 'next.1'],
    ['negative prompt tokens', ['usage', 'prompt_tokens'], -1, 'usage.prompt_tokens'],
    ['fractional total tokens', ['usage', 'total_tokens'], 1.5, 'usage.total_tokens'],
    ['an extra key in usage', ['usage', 'cost'], 0.1, 'usage'],
    ['relevance > 1', ['relevance'], 1.01, 'relevance'],
    ['relevance < 0', ['relevance'], -0.1, 'relevance'],
    ['a started_at that is no datetime', ['started_at'], 'yesterday', 'started_at'],
    ['a finished_at with no time', ['finished_at'], '2024-05-01', 'finished_at'],
    ['attempt 0', ['attempt'], 0, 'attempt'],
    ['an unknown context type', ['context', 0, 'type'], 'video', 'context.0.type'],
    ['an unknown usage_type', ['context', 0, 'usage_type'], 'archive', 'context.0.usage_type'],
    ['an error without message', ['error'], { code: 'x' }, 'error.message'],
    ['an error with an empty code', ['error'], { code: '', message: 'm' }, 'error.code'],
    ['an extra key (strict)', ['comment'], 'hi', '(root)'],
  ])('refuses %s', (_name, path, value, named) => {
    expect(refusal(ActionSchema, withValue(action(), path, value))).toContain(named);
  });
});

describe('NodeNameSchema', () => {
  it.each(['planner', 'tool-executor', 'http_get', 'calc2', 'mcp.github.search_issues', 'mcp.x-y.z_1'])(
    'accepts %s',
    (name) => {
      expect(NodeNameSchema.safeParse(name).success).toBe(true);
    },
  );

  it.each(['Bad Name', 'Planner', '2calc', '', '_private', 'mcp.', 'a..b', 'a.B', 'a b', 'sy.task.>'])(
    'refuses %j',
    (name) => {
      expect(NodeNameSchema.safeParse(name).success).toBe(false);
    },
  );
});

describe('StateDeltaSchema and CommittedDeltaSchema', () => {
  it('parses a node delta (an action without id) with and without a patch', () => {
    const patch = [
      { op: 'add', path: '/todos/0/-', value: { id: 'a', task: 'b', status: 'pending' } },
      { op: 'replace', path: '/scenario', value: 'x' },
      { op: 'remove', path: '/memory/0' },
      { op: 'test', path: '/turn', value: 0 },
    ];

    expect(StateDeltaSchema.parse({ action: draft(), patch })).toEqual({ action: draft(), patch });
    expect(StateDeltaSchema.safeParse({ action: draft() }).success).toBe(true);
  });

  it('parses a committed delta (the action carries its id)', () => {
    expect(CommittedDeltaSchema.parse({ action: action() })).toEqual({ action: action() });
  });

  it.each<[string, Json, string]>([
    ['an action carrying an id', { action: action() }, 'action'],
    ['no action', { patch: [] }, 'action'],
    ['an extra top-level key', { action: draft(), version: 3 }, '(root)'],
    ['a move op', { action: draft(), patch: [{ op: 'move', from: '/a', path: '/b' }] }, 'patch.0.op'],
    ['a copy op', { action: draft(), patch: [{ op: 'copy', from: '/a', path: '/b' }] }, 'patch.0.op'],
    ['an op without path', { action: draft(), patch: [{ op: 'remove' }] }, 'patch.0.path'],
    ['a patch that is no list', { action: draft(), patch: { op: 'remove', path: '/a' } }, 'patch'],
    [
      'negative usage in the action',
      { action: { ...draft(), usage: { ...ZERO_USAGE, completion_tokens: -5 } } },
      'action.usage.completion_tokens',
    ],
  ])('refuses a node delta with %s', (_name, value, named) => {
    expect(refusal(StateDeltaSchema, value)).toContain(named);
  });

  it.each<[string, Json, string]>([
    ['an action without id', { action: draft() }, 'action.id'],
    ['an extra top-level key', { action: action(), task_id: TASK }, '(root)'],
  ])('refuses a committed delta with %s', (_name, value, named) => {
    expect(refusal(CommittedDeltaSchema, value)).toContain(named);
  });

  it('keeps only the supported op fields', () => {
    expect(JsonPatchOperationSchema.parse({ op: 'remove', path: '/a', value: 1, from: '/b' })).toEqual({
      op: 'remove',
      path: '/a',
    });
  });
});

describe('RuntimeStateSchema', () => {
  it('parses a complete state', () => {
    expect(RuntimeStateSchema.parse(runtimeState())).toEqual(runtimeState());
  });

  it.each<InvalidCase>([
    ['a thread_id that is no uuid', ['thread_id'], 'thread-1', 'thread_id'],
    ['a run_id with a bad variant', ['run_id'], '7a1d2c3b-4e5f-4a6b-0c7d-9e0f1a2b3c4d', 'run_id'],
    ['missing version', ['version'], REMOVE, 'version'],
    ['a negative version', ['version'], -1, 'version'],
    ['a turn that is a string', ['turn'], '0', 'turn'],
    ['todos that are one flat list', ['todos'], [{ id: 't', task: 'c', status: 'completed' }], 'todos.0'],
    ['a todo without id', ['todos', 0, 0, 'id'], REMOVE, 'todos.0.0.id'],
    ['a todo with a numeric retry_after', ['todos', 0, 0, 'retry_after'], -1, 'todos.0.0.retry_after'],
    ['a todo with an old status', ['todos', 0, 0, 'status'], 'done', 'todos.0.0.status'],
    ['a todo with a negative retry', ['todos', 0, 0, 'retry'], -1, 'todos.0.0.retry'],
    ['an action without usage', ['action_history', 0, 1, 'usage'], REMOVE, 'action_history.0.1.usage'],
    ['negative usage', ['usage', 0, 'total_tokens'], -24, 'usage.0.total_tokens'],
    [
      'an unknown file provider',
      ['origin_files', 0, 'mapping', 'provider'],
      'dropbox',
      'origin_files.0.mapping.provider',
    ],
    ['a chat role that does not exist', ['chat_history', 0, 'role'], 'robot', 'chat_history.0.role'],
    [
      'preprocessed_files without tables',
      ['preprocessed_files', 'tables'],
      REMOVE,
      'preprocessed_files.tables',
    ],
    ['user_context as a list', ['user_context'], ['en'], 'user_context'],
    ['memory without score', ['memory', 0, 'score'], REMOVE, 'memory.0.score'],
    ['an extra key (strict)', ['extra'], true, '(root)'],
  ])('refuses %s', (_name, path, value, named) => {
    expect(refusal(RuntimeStateSchema, withValue(runtimeState(), path, value))).toContain(named);
  });
});

describe('TaskMessageSchema', () => {
  it('parses a task, with and without trace', () => {
    const { trace: _t, ...untraced } = taskMessage();

    expect(TaskMessageSchema.parse(taskMessage())).toEqual(taskMessage());
    expect(TaskMessageSchema.safeParse(untraced).success).toBe(true);
  });

  it("parses a task with its run's tenant and priority", () => {
    const task = { ...taskMessage(), tenant_id: '00000000-0000-4000-8000-000000000001', priority: 'batch' };
    expect(TaskMessageSchema.parse(task)).toEqual(task);
  });

  it.each<InvalidCase>([
    ['a task_id that is no uuid', ['task_id'], 'task-1', 'task_id'],
    ['missing call_index', ['call_index'], REMOVE, 'call_index'],
    ['a negative call_index', ['call_index'], -1, 'call_index'],
    ['the node name "Bad Name"', ['node'], 'Bad Name', 'node'],
    ['attempt 0', ['attempt'], 0, 'attempt'],
    ['a fractional version', ['version'], 1.5, 'version'],
    ['a deadline that is no datetime', ['deadline'], 'in 5 minutes', 'deadline'],
    ['a trace value that is no string', ['trace', 'traceparent'], 1, 'trace.traceparent'],
    ['an extra key (strict)', ['urgency'], 1, '(root)'],
    ['a priority that is not known', ['priority'], 'urgent', 'priority'],
    ['a tenant_id that is no uuid', ['tenant_id'], 'acme', 'tenant_id'],
  ])('refuses %s', (_name, path, value, named) => {
    expect(refusal(TaskMessageSchema, withValue(taskMessage(), path, value))).toContain(named);
  });
});

describe('DeltaMessageSchema', () => {
  it('parses a delta message', () => {
    expect(DeltaMessageSchema.parse(deltaMessage())).toEqual(deltaMessage());
  });

  it('parses a delta with the trace its task sent it in', () => {
    const traced = { ...deltaMessage(), trace: { traceparent: '00-abc-def-01' } };
    expect(DeltaMessageSchema.parse(traced)).toEqual(traced);
  });

  it.each<InvalidCase>([
    ['a run_id that is no uuid', ['run_id'], 'nope', 'run_id'],
    ['a negative base_version', ['base_version'], -1, 'base_version'],
    [
      'negative usage in the action',
      ['delta', 'action', 'usage', 'total_tokens'],
      -1,
      'delta.action.usage.total_tokens',
    ],
    ['an action that carries an id', ['delta', 'action', 'id'], 7, 'delta.action'],
    ['relevance > 1', ['delta', 'action', 'relevance'], 2, 'delta.action.relevance'],
    ['a bad node name', ['node'], 'Bad Name', 'node'],
    ['an extra key (strict)', ['state'], {}, '(root)'],
    ['a trace that is no record of strings', ['trace'], { traceparent: 1 }, 'trace.traceparent'],
  ])('refuses %s', (_name, path, value, named) => {
    expect(refusal(DeltaMessageSchema, withValue(deltaMessage(), path, value))).toContain(named);
  });

  const call = {
    call_id: TASK,
    tenant_id: TENANT,
    business_id: null,
    run_id: RUN,
    task_id: TASK,
    node: 'planner',
    attempt: 1,
    model_id: RUN,
    key_id: null,
    prompt_tokens: 9,
    completion_tokens: 1,
    total_tokens: 10,
    cost: 0.000012,
  };

  it("parses a delta carrying its task's model calls", () => {
    const carried = { ...deltaMessage(), usage_calls: [call] };
    expect(DeltaMessageSchema.parse(carried)).toEqual(carried);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['no call_id', { call_id: undefined }, 'usage_calls.0.call_id'],
    ['negative tokens', { prompt_tokens: -1 }, 'usage_calls.0.prompt_tokens'],
    ['tokens past an integer column', { total_tokens: 2 ** 31 }, 'usage_calls.0.total_tokens'],
    ['a cost past its numeric column', { cost: 1e8 }, 'usage_calls.0.cost'],
    ['an extra key (strict)', { usage: {} }, 'usage_calls.0'],
  ])('refuses a carried call with %s', (_name, change, named) => {
    expect(
      refusal(DeltaMessageSchema, { ...deltaMessage(), usage_calls: [{ ...call, ...change }] }),
    ).toContain(named);
  });
});

describe('run control messages', () => {
  const start = { run_id: RUN, thread_id: THREAD, tenant_id: TENANT, agent_id: 'default' };

  it('parses run start, cancel and fail messages', () => {
    expect(RunStartMessageSchema.parse(start)).toEqual(start);
    expect(RunCancelMessageSchema.parse({ run_id: RUN })).toEqual({ run_id: RUN });
    expect(RunFailMessageSchema.parse({ run_id: RUN, code: 'bad_task', message: 'unreadable' })).toEqual({
      run_id: RUN,
      code: 'bad_task',
      message: 'unreadable',
    });
  });

  it.each<InvalidCase>([
    ['a tenant_id that is no uuid', ['tenant_id'], 'acme', 'tenant_id'],
    ['missing thread_id', ['thread_id'], REMOVE, 'thread_id'],
    ['an empty agent_id', ['agent_id'], '', 'agent_id'],
    ['an extra key (strict)', ['prompt'], 'hi', '(root)'],
  ])('refuses a run start with %s', (_name, path, value, named) => {
    expect(refusal(RunStartMessageSchema, withValue(start, path, value))).toContain(named);
  });

  it.each<[string, z.ZodType, Json, string]>([
    ['a cancel with an extra key', RunCancelMessageSchema, { run_id: RUN, reason: 'x' }, '(root)'],
    ['a cancel with a bad uuid', RunCancelMessageSchema, { run_id: '123' }, 'run_id'],
    [
      'a fail with an empty message',
      RunFailMessageSchema,
      { run_id: RUN, code: 'x', message: '' },
      'message',
    ],
  ])('refuses %s', (_name, schema, value, named) => {
    expect(refusal(schema, value)).toContain(named);
  });
});

describe('NodeRegistrationSchema', () => {
  it('parses a registration', () => {
    expect(NodeRegistrationSchema.parse(registration())).toEqual(registration());
  });

  it('drops unknown keys (the schema is not strict, for rolling upgrades)', () => {
    expect(NodeRegistrationSchema.parse({ ...registration(), version: '2' })).toEqual(registration());
  });

  it.each<InvalidCase>([
    ['the name "Bad Name"', ['name'], 'Bad Name', 'name'],
    ['an empty service', ['service'], '', 'service'],
    ['an unknown kind', ['kind'], 'robot', 'kind'],
    ['tool as a string', ['tool'], 'yes', 'tool'],
    ['an input_schema that is a list', ['input_schema'], [], 'input_schema'],
    ['a registered_at that is no datetime', ['registered_at'], 'now', 'registered_at'],
    ['missing idempotent', ['idempotent'], REMOVE, 'idempotent'],
  ])('refuses %s', (_name, path, value, named) => {
    expect(refusal(NodeRegistrationSchema, withValue(registration(), path, value))).toContain(named);
  });
});

describe('EventPayloadSchemas', () => {
  const VALID: Record<EventType, Json> = {
    status: { status: 'running' },
    node_started: { node: 'planner', task_id: TASK, attempt: 1 },
    action: {
      id: 3,
      node: 'calculator',
      summary: '4',
      next: ['reflection'],
      usage: { ...ZERO_USAGE },
      error: { code: 'x', message: 'y' },
    },
    token: { node: 'output', task_id: TASK, text: 'Hel' },
    waiting_for_user: { question: 'Which file?', input_schema: { type: 'string' } },
    error: { code: 'delta_rejected', message: 'nope', node: 'planner' },
    done: { status: 'succeeded' },
  };

  it('has a valid example for every event type', () => {
    expect(Object.keys(VALID).sort()).toEqual([...EVENT_TYPES].sort());
  });

  it.each(EVENT_TYPES)('parses a %s payload', (type) => {
    expect(EventPayloadSchemas[type].parse(VALID[type])).toEqual(VALID[type]);
  });

  it.each<[EventType, Json, string]>([
    ['status', { status: 'done' }, 'status'],
    ['node_started', { node: 'planner', task_id: TASK }, 'attempt'],
    ['action', { ...VALID.action, next: undefined }, 'next'],
    [
      'action',
      { ...VALID.action, usage: { prompt_tokens: '1', completion_tokens: 0, total_tokens: 0 } },
      'usage.prompt_tokens',
    ],
    ['token', { node: 'output', task_id: TASK }, 'text'],
    ['error', { code: 'x' }, 'message'],
    ['done', { status: 'paused' }, 'status'],
  ])('refuses a bad %s payload', (type, payload, named) => {
    expect(refusal(EventPayloadSchemas[type], payload)).toContain(named);
  });

  it.each(RUN_STATUSES.map((s) => [s, ['succeeded', 'failed', 'cancelled'].includes(s)] as const))(
    'isTerminal(%s) is %s',
    (status, terminal) => {
      expect(isTerminal(status)).toBe(terminal);
    },
  );
});

describe(describeZodError.name, () => {
  it('names the dotted path of each issue with its message', () => {
    const result = ActionSchema.safeParse({
      ...action(),
      usage: { ...ZERO_USAGE, total_tokens: -1 },
      node: 'X',
    });

    const text = describeZodError(result.error!);

    expect(text).toMatch(/^node: node names are lower-case identifiers; usage\.total_tokens: .+$/);
  });

  it('names the root for an issue without a path', () => {
    const text = describeZodError(RunCancelMessageSchema.safeParse('not an object').error!);

    expect(text).toMatch(/^\(root\): /);
  });

  it('reports at most 8 issues', () => {
    const error = ActionSchema.safeParse({}).error!;

    expect(error.issues.length).toBeGreaterThan(8);
    expect(describeZodError(error).split('; ')).toHaveLength(8);
  });
});

describe('subjects', () => {
  it.each([
    [taskSubject('tool-executor', 'calculator'), 'sy.task.tool-executor.calculator'],
    [taskSubject('tool-executor', 'mcp.github.search'), 'sy.task.tool-executor.mcp.github.search'],
    [taskFilter('planner'), 'sy.task.planner.>'],
    [deltaSubject('reflection'), 'sy.delta.reflection'],
    [cancelSubject(RUN), `sy.cancel.${RUN}`],
  ])('builds %s', (subject, expected) => {
    expect(subject).toBe(expected);
  });

  it('puts tasks, deltas and run control on the subjects their streams capture', () => {
    const captured = (stream: { subjects: readonly string[] }, subject: string) =>
      stream.subjects.some((s) => subject.startsWith(s.replace(/>$/, '')));

    expect(captured(STREAMS.tasks, taskSubject('planner', 'planner'))).toBe(true);
    expect(captured(STREAMS.deltas, deltaSubject('planner'))).toBe(true);
    for (const subject of Object.values(SUBJECTS)) {
      expect(captured(STREAMS.runs, subject)).toBe(true);
    }
    // Every task subject of a service falls under its consumer's filter.
    expect(taskSubject('planner', 'intake').startsWith(taskFilter('planner').slice(0, -1))).toBe(true);
  });
});

describe(findToolCall.name, () => {
  const calc1: ToolCall = { id: 'c1', name: 'calculator', args: { expression: '1+1' } };
  const web: ToolCall = { id: 'c2', name: 'http_get', args: { url: 'https://example.com' } };
  const calc2: ToolCall = { id: 'c3', name: 'calculator', args: { expression: '2*3' } };

  const planner = (id: number, result: unknown): Action =>
    action({ id, node: 'planner', result, next: ['calculator', 'http_get', 'calculator'] });

  /** A state in turn 1 whose current-turn actions are `turnActions`; turn 0 holds `previous`. */
  const stateWith = (turnActions: Action[], previous: Action[] = []): RuntimeState => ({
    ...runtimeState(),
    turn: 1,
    action_history: [previous, turnActions],
  });

  it.each<[string, number, ToolCall | undefined]>([
    ['calculator', 0, calc1],
    ['calculator', 1, calc2],
    ['calculator', 2, undefined],
    ['http_get', 0, web],
    ['http_get', 1, undefined],
    ['weather', 0, undefined],
  ])('finds call %s #%i of the latest planner action', (node, index, expected) => {
    const state = stateWith([
      action({ id: 10, node: 'start' }),
      planner(11, { content: '', tool_calls: [calc1, web, calc2] }),
    ]);

    expect(findToolCall(state, node, index)).toEqual(expected);
  });

  it('reads the latest planner action of the turn, skipping the tool and reflection actions after it', () => {
    const state = stateWith([
      planner(10, { content: '', tool_calls: [calc1] }),
      action({ id: 11, node: 'calculator' }),
      action({ id: 12, node: 'reflection' }),
      planner(13, { content: 'again', tool_calls: [calc2] }),
      action({ id: 14, node: 'http_get' }),
    ]);

    expect(findToolCall(state, 'calculator', 0)).toEqual(calc2);
  });

  it('does not fall back to an older planner action when the latest result is malformed', () => {
    const state = stateWith([
      planner(10, { content: '', tool_calls: [calc1] }),
      planner(11, { content: 'no calls field' }),
    ]);

    expect(PlannerResultSchema.safeParse({ content: 'no calls field' }).success).toBe(false);
    expect(findToolCall(state, 'calculator', 0)).toBeUndefined();
  });

  it("looks only at the current turn, not at an earlier turn's planner", () => {
    const state = stateWith(
      [action({ id: 20, node: 'start' })],
      [planner(10, { content: '', tool_calls: [calc1] })],
    );

    expect(findToolCall(state, 'calculator', 0)).toBeUndefined();
  });

  it('finds nothing when the current turn is not open', () => {
    const state: RuntimeState = { ...runtimeState(), turn: 4 };

    expect(findToolCall(state, 'calculator', 0)).toBeUndefined();
  });

  it.each<[string, unknown]>([
    ['a call without id', { content: '', tool_calls: [{ name: 'calculator', args: {} }] }],
    ['args that are no object', { content: '', tool_calls: [{ id: 'a', name: 'calculator', args: '1+1' }] }],
    ['no content', { tool_calls: [] }],
  ])('PlannerResultSchema refuses %s', (_name, result) => {
    expect(PlannerResultSchema.safeParse(result).success).toBe(false);
  });
});

describe('actionEventPayload', () => {
  const base = {
    id: 3,
    node: 'graph.-message---show',
    summary: 's',
    next: [] as string[],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  };
  const file = {
    doc_id: 'd',
    filename: 'a.pdf',
    mime_type: 'application/pdf',
    size: 1,
    url: '/v1/files/d/content',
  };

  it("carries what a graph action shows: a default value's message and a Message's downloads", () => {
    expect(
      actionEventPayload({
        ...base,
        result: { message: 'offline', outputs: { content: 'x', downloads: [file] } },
      }),
    ).toEqual({ ...base, message: 'offline', downloads: [file] });
  });

  it('carries neither for other results, and never the result itself', () => {
    expect(actionEventPayload({ ...base, result: { outputs: { downloads: [] } } })).toEqual(base);
    expect(actionEventPayload({ ...base, result: { value: 14 } })).toEqual(base);
    expect(actionEventPayload({ ...base, result: null })).toEqual(base);
  });
});
