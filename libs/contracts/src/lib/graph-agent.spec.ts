import { GRAPH_ENTRY_NODE, componentIdOfNode, graphNodeName } from './graph-agent';
import { ASK_USER } from './human-input';
import { NodeNameSchema, type RuntimeState } from './state.schema';
import { findToolCall } from './tool-call';

describe(graphNodeName.name, () => {
  it.each([
    ['begin', 'graph.begin'],
    ['Switch:EmptySquidsJudge', 'graph.-switch---empty-squids-judge'],
    ['retrieval:0', 'graph.retrieval--0'],
    ['Agent:Foo_bar2', 'graph.-agent---foo_bar2'],
    ['A:B', 'graph.-a---b'],
    // PuppyEngine edge ids have "-" (and "_" after it).
    ['llm-1723230193364', 'graph.llm-_1723230193364'],
    ['_Sgz-w', 'graph._-sgz-_w'],
    ['-_x', 'graph.-__x'],
  ])('%s ↔ %s (a valid node name, reversible)', (id, node) => {
    expect(graphNodeName(id)).toBe(node);
    expect(NodeNameSchema.safeParse(node).success).toBe(true);
    expect(componentIdOfNode(node)).toBe(id);
  });

  it.each([['planner'], ['mcp.fs.read'], ['graphx.begin']])('%s is no graph node', (node) => {
    expect(componentIdOfNode(node)).toBeUndefined();
  });

  it('enters a canvas at its Begin', () => {
    expect(componentIdOfNode(GRAPH_ENTRY_NODE)).toBe('begin');
  });
});

describe('findToolCall on a graph component', () => {
  const action = (node: string, result: unknown, id: number) => ({
    id,
    node,
    preparation: '',
    summary: '',
    result,
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    next: [],
    started_at: '2024-05-01T10:00:00.000Z',
    finished_at: '2024-05-01T10:00:00.000Z',
    attempt: 1,
  });
  const ask = {
    id: 'fill',
    name: 'ask_user',
    args: { question: 'Pick one', resume_at: 'graph.-user-fill-up---menu' },
  };
  const stateWith = (actions: ReturnType<typeof action>[]) =>
    ({ turn: 0, action_history: [actions] }) as unknown as RuntimeState;

  it.each([
    [
      'the paused UserFillUp is the latest action',
      [action('graph.-user-fill-up---menu', { tool_calls: [ask] }, 1)],
      ask,
    ],
    [
      'a later graph action without calls is passed over',
      [
        action('graph.-user-fill-up---menu', { tool_calls: [ask] }, 1),
        action('graph.-message---m', { outputs: {} }, 2),
      ],
      ask,
    ],
    ['no call anywhere', [action('graph.begin', { outputs: {} }, 1)], undefined],
  ])('%s', (_case, actions, call) => {
    expect(findToolCall(stateWith(actions), 'ask_user', 0)).toEqual(call);
  });

  it('lets a graph UserFillUp name where the answer goes', () => {
    expect(ASK_USER.argsSchema.parse(ask.args)).toEqual(ask.args);
    expect(ASK_USER.argsSchema.safeParse({ question: 'q', resume_at: 'planner' }).success).toBe(false);
  });
});
