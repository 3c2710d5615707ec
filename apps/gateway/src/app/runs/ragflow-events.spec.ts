import { type RunEvent, graphNodeName } from '@switchyard/contracts';
import { RagflowEventEncoder, formOf } from './ragflow-events';

const RUN = '0b9f6c1e-8d3a-4c5b-9e6f-1a2b3c4d5e6f';
const THREAD = '1c2d3e4f-8d3a-4c5b-9e6f-1a2b3c4d5e6f';

const ctx = {
  runId: RUN,
  threadId: THREAD,
  inputs: { customer_review: { value: 'late' } },
  components: new Map([
    ['begin', { type: 'Begin', name: 'begin' }],
    ['Message:Done', { type: 'Message', name: 'Reply' }],
    ['Switch:Route', { type: 'Switch', name: 'Route' }],
  ]),
};

let n = 0;
const ev = (event_type: RunEvent['event_type'], payload: unknown): RunEvent => ({
  run_id: RUN,
  seq: `1700000000000-${++n}`,
  event_type,
  payload: payload as never,
  ts: 1_700_000_000_000,
});

/** The RAGFlow frames of one event: `[event name, data]`, with the envelope checked. */
function frames(text: string, seq?: string): [string, unknown][] {
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((block) => {
      const lines = Object.fromEntries(
        block.split('\n').map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]),
      );
      const body = JSON.parse(lines['data']) as Record<string, unknown>;
      expect(body['event']).toBe(lines['event']);
      expect(body).toMatchObject({ message_id: RUN, task_id: RUN, session_id: THREAD });
      if (seq) {
        expect(lines['id']).toBe(seq);
      }
      return [lines['event'], body['data']];
    });
}

describe('RAGFlow stream vocabulary', () => {
  it.each<[string, RunEvent, [string, unknown][]]>([
    [
      'the first running status starts the workflow, echoing the inputs',
      ev('status', { status: 'running' }),
      [['workflow_started', { inputs: { customer_review: { value: 'late' } } }]],
    ],
    [
      'a component starting, with its class and display name',
      ev('node_started', { node: 'graph.-switch---route', task_id: 't', attempt: 1 }),
      [
        [
          'node_started',
          {
            inputs: null,
            created_at: 1_700_000_000,
            component_id: 'Switch:Route',
            component_name: 'Route',
            component_type: 'Switch',
          },
        ],
      ],
    ],
    [
      "a Message's token is a message",
      ev('token', { node: 'graph.-message---done', task_id: 't', text: 'hello' }),
      [['message', { content: 'hello' }]],
    ],
    [
      "an Agent's tool note is thinking, between RAGFlow's start and end markers",
      ev('token', {
        node: 'graph.-message---done',
        task_id: 't',
        text: '<think>Running the x_0 tool...</think>',
      }),
      [
        ['message', { content: '', start_to_think: true }],
        ['message', { content: 'Running the x_0 tool...' }],
        ['message', { content: '', end_to_think: true }],
      ],
    ],
    [
      'a finished Message ends its message, then the node',
      ev('action', { id: 3, node: 'graph.-message---done', summary: '', next: [], usage: {} }),
      [
        ['message_end', {}],
        [
          'node_finished',
          {
            component_id: 'Message:Done',
            component_name: 'Reply',
            component_type: 'Message',
            error: null,
            created_at: 1_700_000_000,
          },
        ],
      ],
    ],
    [
      "a failed component's error is on its node_finished",
      ev('action', {
        id: 4,
        node: 'graph.-switch---route',
        summary: '',
        next: [],
        usage: {},
        error: { code: 'component_failed', message: 'boom' },
      }),
      [
        [
          'node_finished',
          expect.objectContaining({ component_id: 'Switch:Route', error: 'boom' }) as unknown,
        ],
      ],
    ],
    [
      'a UserFillUp question is user_inputs with the form as RAGFlow shows it',
      ev('waiting_for_user', {
        question: 'pick one',
        input_schema: {
          type: 'object',
          properties: {
            demo: {
              description: 'Demo',
              'x-ragflow-field': { name: 'Demo', type: 'options', options: ['a'] },
            },
          },
          required: ['demo'],
        },
      }),
      [
        [
          'user_inputs',
          {
            inputs: { demo: { name: 'Demo', type: 'options', options: ['a'], value: null } },
            tips: 'pick one',
          },
        ],
      ],
    ],
    [
      'an error is an error',
      ev('error', { code: 'component_failed', message: 'component X: boom' }),
      [['error', { code: 'component_failed', message: 'component X: boom' }]],
    ],
  ])('%s', (_, event, expected) => {
    const encoder = new RagflowEventEncoder(ctx);
    expect(frames(encoder.encode(event), event.seq)).toEqual(expected);
  });

  it.each<[string, RunEvent]>([
    ['a second running status (after a resume)', ev('status', { status: 'running' })],
    ['a status other than running', ev('status', { status: 'waiting' })],
    ["the orchestrator's own nodes", ev('node_started', { node: 'ask_user', task_id: 't', attempt: 1 })],
    [
      'tokens of a component that is no Message',
      ev('token', { node: 'graph.-switch---route', task_id: 't', text: 'x' }),
    ],
    [
      'actions of nodes that are no component',
      ev('action', { id: 1, node: 'start', summary: '', next: [], usage: {} }),
    ],
    ['done itself (the end frame follows it)', ev('done', { status: 'succeeded' })],
  ])('leaves out %s', (_, event) => {
    const encoder = new RagflowEventEncoder(ctx);
    encoder.encode(ev('status', { status: 'running' }));
    expect(encoder.encode(event)).toBe('');
  });

  it.each<[string, 'succeeded' | 'cancelled' | 'failed', [string, unknown][]]>([
    [
      'a succeeded run finishes with the outputs of the component that ran last',
      'succeeded',
      [
        [
          'workflow_finished',
          {
            inputs: ctx.inputs,
            outputs: { content: 'last', downloads: [] },
            elapsed_time: 2,
            created_at: 1_700_000_002,
          },
        ],
      ],
    ],
    [
      'a cancelled run finishes as RAGFlow reports a cancel',
      'cancelled',
      [
        [
          'workflow_finished',
          {
            inputs: ctx.inputs,
            outputs: 'Task has been canceled',
            elapsed_time: 2,
            created_at: 1_700_000_002,
          },
        ],
      ],
    ],
    ['a failed run has no workflow_finished (its error was sent)', 'failed', []],
  ])('%s', (_, status, expected) => {
    const encoder = new RagflowEventEncoder(ctx);
    expect(encoder.needsEnd).toBe(false);
    encoder.encode(ev('done', { status }));
    expect(encoder.needsEnd).toBe(true);
    const end = encoder.end({
      status,
      answer: 'first and last',
      lastOutputs: { content: 'last', downloads: [] },
      startedAt: 1_700_000_000_000,
      finishedAt: 1_700_000_002_000,
    });
    expect(frames(end)).toEqual(expected);
  });

  it("shows a failed component's default value as its own message before it finishes (exception policy)", () => {
    const encoder = new RagflowEventEncoder({
      ...ctx,
      components: new Map([['Invoke:Call', { type: 'Invoke', name: 'Call' }]]),
    });
    const out = frames(
      encoder.encode(
        ev('action', {
          id: 1,
          node: 'graph.-invoke---call',
          summary: '',
          next: [],
          usage: {},
          message: 'offline',
        }),
      ),
    );
    expect(out.slice(0, 2)).toEqual([
      ['message', { content: 'offline' }],
      ['message_end', {}],
    ]);
    expect(out[2][0]).toBe('node_finished');
  });

  it('shows a UserFillUp once, when it runs with the answer (not when it only asked for it)', () => {
    const encoder = new RagflowEventEncoder({
      ...ctx,
      components: new Map([['UserFillUp:Ask', { type: 'UserFillUp', name: 'Ask' }]]),
    });
    const started = () => ev('node_started', { node: 'graph.-user-fill-up---ask', task_id: 't', attempt: 1 });
    const action = (next: string[]) =>
      ev('action', { id: 1, node: 'graph.-user-fill-up---ask', summary: '', next, usage: {} });
    expect(encoder.encode(started())).toBe('');
    expect(encoder.encode(action(['ask_user']))).toBe('');
    expect(encoder.encode(started())).toBe('');
    expect(frames(encoder.encode(action(['graph.-message---done']))).map(([name]) => name)).toEqual([
      'node_started',
      'node_finished',
    ]);
  });

  it.each<[string, string[], string[]]>([
    ['an item that goes round again finishes alone', ['graph.-fmt'], ['node_finished']],
    ['an item that ran out finishes its Iteration too', ['graph.-done'], ['node_finished', 'node_finished']],
  ])('%s; the Iteration itself finishes only then', (_, next, names) => {
    const encoder = new RagflowEventEncoder({
      ...ctx,
      components: new Map([
        ['Iter', { type: 'Iteration', name: 'Iter' }],
        ['Item', { type: 'IterationItem', name: 'Item', parentId: 'Iter' }],
        ['Fmt', { type: 'StringTransform', name: 'Fmt', parentId: 'Iter' }],
        ['Done', { type: 'Message', name: 'Done' }],
      ]),
    });
    expect(
      encoder.encode(
        ev('action', { id: 1, node: 'graph.-iter', summary: '', next: ['graph.-item'], usage: {} }),
      ),
    ).toBe('');
    const out = frames(
      encoder.encode(ev('action', { id: 2, node: 'graph.-item', summary: '', next, usage: {} })),
    );
    expect(out.map(([name]) => name)).toEqual(names);
    expect(out.map(([, data]) => (data as { component_id: string }).component_id)).toEqual(
      ['Item', 'Iter'].slice(0, names.length),
    );
  });

  it('reads a form of any schema: one line field per property, optional unless required', () => {
    expect(
      formOf({ type: 'object', properties: { a: { description: 'The A' }, b: {} }, required: ['a'] }),
    ).toEqual({
      a: { name: 'The A', type: 'line', optional: false, value: null },
      b: { name: 'b', type: 'line', optional: true, value: null },
    });
    expect(formOf(undefined)).toEqual({});
  });
  it("holds a streaming Agent's node_finished until the Message showing its stream has ended", () => {
    const encoder = new RagflowEventEncoder({
      ...ctx,
      components: new Map([
        ['Agent:A', { type: 'Agent', name: 'A', streamsInto: ['Msg'] }],
        ['Msg', { type: 'Message', name: 'Msg' }],
      ]),
    });
    const action = (node: string) => ev('action', { id: 1, node, summary: '', next: [], usage: {} });
    expect(encoder.encode(action(graphNodeName('Agent:A')))).toBe('');
    const names = frames(encoder.encode(action(graphNodeName('Msg')))).map(([name, data]) => [
      name,
      (data as { component_id?: string }).component_id,
    ]);
    expect(names).toEqual([
      ['message_end', undefined],
      ['node_finished', 'Agent:A'],
      ['node_finished', 'Msg'],
    ]);
  });

  it('finishes a streaming Agent whose Message never ran when the run is done, and a failed one at once', () => {
    const encoder = new RagflowEventEncoder({
      ...ctx,
      components: new Map([
        ['Agent:A', { type: 'Agent', name: 'A', streamsInto: ['Msg'] }],
        ['Agent:B', { type: 'Agent', name: 'B', streamsInto: ['Msg'] }],
      ]),
    });
    expect(
      encoder.encode(
        ev('action', { id: 1, node: graphNodeName('Agent:A'), summary: '', next: [], usage: {} }),
      ),
    ).toBe('');
    const failed = frames(
      encoder.encode(
        ev('action', {
          id: 2,
          node: graphNodeName('Agent:B'),
          summary: '',
          next: [],
          usage: {},
          error: { code: 'x', message: 'boom' },
        }),
      ),
    );
    expect(failed).toEqual([
      ['node_finished', expect.objectContaining({ component_id: 'Agent:B', error: 'boom' })],
    ]);
    expect(frames(encoder.encode(ev('done', { status: 'succeeded' })))).toEqual([
      ['node_finished', expect.objectContaining({ component_id: 'Agent:A', error: null })],
    ]);
  });
});

describe('an agent that is no canvas', () => {
  it("shows its answer node's tokens as messages and its end as message_end; nothing else of it", () => {
    const plain = new RagflowEventEncoder({ ...ctx, components: new Map(), plainAgent: true });
    expect(frames(plain.encode(ev('token', { node: 'output', task_id: 't', text: 'Hel' })))).toEqual([
      ['message', { content: 'Hel' }],
    ]);
    expect(frames(plain.encode(ev('action', { node: 'output', next: [] })))).toEqual([['message_end', {}]]);
    expect(plain.encode(ev('token', { node: 'planner', task_id: 'p', text: 'x' }))).toBe('');
    expect(plain.encode(ev('action', { node: 'planner', next: ['output'] }))).toBe('');
    // A canvas's run shows only its components, whatever its nodes are called.
    const canvas = new RagflowEventEncoder(ctx);
    expect(canvas.encode(ev('token', { node: 'output', task_id: 't', text: 'x' }))).toBe('');
  });
});
