import type { Canvas } from './dsl.schema';
import { loopConditionHolds, loopEnded, loopVariables } from './loop';
import type { VariableScope } from './variable-ref';

const canvas: Canvas = {
  components: {
    'U:In': {
      id: 'U:In',
      name: 'UserFillUp',
      params: { outputs: { value: {} } },
      downstream: [],
      upstream: [],
    },
  },
  globals: {},
  variables: {},
  names: {},
};
const scope = (outputs: Record<string, Record<string, unknown>> = {}): VariableScope => ({
  canvas,
  globals: { 'env.n': 3 },
  outputs,
});

describe(loopConditionHolds.name, () => {
  it.each([
    [null, 'empty', '', true],
    [null, 'is', '1', false],
    ['1', 'is', '1', true],
    ['abc', 'is', '1', false],
    ['abc', 'contains', 'b', true],
    ['abc', 'not empty', '', true],
    [true, 'is', true, true],
    [true, 'is not', true, false],
    [3, '≥', 3, true],
    [3, '>', '2', false],
    [[1, 2], 'contains', 2, true],
    [[], 'empty', '', true],
    [{ a: 1 }, 'not empty', '', true],
  ])('%j %s %j → %s', (left, op, right, holds) => expect(loopConditionHolds(left, op, right)).toBe(holds));
});

describe(loopEnded.name, () => {
  const params = (value: string, extra: Record<string, unknown> = {}) => ({
    logical_operator: 'and',
    loop_termination_condition: [{ input_mode: 'constant', operator: 'is', value, variable: 'U:In@value' }],
    maximum_loop_count: 50,
    ...extra,
  });
  it.each([
    ['the input has not run yet (None)', {}, params('1'), 0, false],
    ['the input is not yet the value', { 'U:In': { value: 'abc' } }, params('1'), 1, false],
    ['the input is the value', { 'U:In': { value: '1' } }, params('1'), 1, true],
    ['the maximum count is reached', {}, params('1', { maximum_loop_count: 2 }), 2, true],
    [
      'an empty AND list ends at once',
      {},
      { logical_operator: 'and', loop_termination_condition: [] },
      0,
      true,
    ],
    ['an empty OR list never ends', {}, { logical_operator: 'or', loop_termination_condition: [] }, 0, false],
  ])('%s', (_case, outputs, p, visit, ended) => expect(loopEnded(scope(outputs), p, visit)).toBe(ended));
});

describe(loopVariables.name, () => {
  it.each([
    [[{ variable: 'x', input_mode: 'constant', type: 'string', value: 'v' }], { x: 'v' }],
    [[{ variable: 'n', input_mode: 'variable', type: 'number', value: 'env.n' }], { n: 3 }],
    [[], {}],
  ])('%j → %j', (vars, out) => expect(loopVariables(scope(), { loop_variables: vars })).toEqual(out));

  it.each([
    [[{ input_mode: 'constant', type: 'string', value: '', variable: '' }]],
    [[{ variable: 'x', type: 'string', value: 'v' }]],
    [[{ variable: 'x', input_mode: 'constant', value: 'v' }]],
  ])('refuses an incomplete entry %j (all.json as shipped)', (vars) => {
    expect(() => loopVariables(scope(), { loop_variables: vars })).toThrow('Loop Variable is not complete.');
  });
});
