import { type Action, type Todo, TodoSchema } from '@switchyard/contracts';
import { errorsOf, groupByTodo, latestToolRound, secondsOf } from './tool-round';

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-01T00:00:01.500Z';
let id = 0;
const action = (node: string, extra: Partial<Action> = {}): Action => ({
  id: ++id,
  node,
  preparation: '',
  summary: '',
  result: null,
  usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  next: [],
  started_at: T0,
  finished_at: T1,
  attempt: 1,
  ...extra,
});
const planner = (calls: { id: string; name: string }[]) =>
  action('planner', { result: { content: '', tool_calls: calls.map((c) => ({ ...c, args: {} })) } });
const todo = (tid: string, call_ids: string[]): Todo =>
  TodoSchema.parse({ id: tid, task: tid, status: 'processing', call_ids });

describe('latestToolRound', () => {
  it("pairs the k-th action of a node with the node's k-th call of the latest planner step", () => {
    const round = latestToolRound([
      planner([{ id: 'old', name: 'calculator' }]),
      action('calculator'),
      action('reflection'),
      planner([
        { id: 'c1', name: 'calculator' },
        { id: 'h1', name: 'http_get' },
        { id: 'c2', name: 'calculator' },
      ]),
      action('calculator', { result: 1 }),
      action('calculator', { result: 2 }),
      action('http_get', { result: 3 }),
    ]);
    expect(round.map((r) => [r.action.result, r.call?.id])).toEqual([
      [1, 'c1'],
      [2, 'c2'],
      [3, 'h1'],
    ]);
  });

  it('is empty without a planner step', () => {
    expect(latestToolRound([action('start')])).toEqual([]);
  });
});

describe('groupByTodo', () => {
  it('files results under the todo that holds their call id, unfiled ones last', () => {
    const round = latestToolRound([
      planner([
        { id: 'c1', name: 'calculator' },
        { id: 'c2', name: 'calculator' },
        { id: 'x', name: 'http_get' },
      ]),
      action('calculator'),
      action('calculator', { error: { code: 'math_error', message: 'division by zero' } }),
      action('http_get'),
    ]);
    const groups = groupByTodo([todo('a', ['c2']), todo('b', ['old', 'c1'])], round);
    expect(groups.map((g) => [g.todo?.id, g.results.map((r) => r.call?.id)])).toEqual([
      ['a', ['c2']],
      ['b', ['c1']],
      [undefined, ['x']],
    ]);
    expect(errorsOf(groups[0].results)).toBe('math_error: division by zero');
    expect(secondsOf(groups[0].results[0].action)).toBe(1.5);
  });
});
