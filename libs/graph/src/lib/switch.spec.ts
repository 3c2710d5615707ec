import type { Canvas } from './dsl.schema';
import { compareSwitchItem, evaluateSwitch, SWITCH_OPERATORS, type SwitchParams } from './switch';
import type { VariableScope } from './variable-ref';

const canvas: Canvas = {
  components: {
    begin: { id: 'begin', name: 'Begin', params: {}, downstream: [], upstream: [] },
    'Cpn:A': { id: 'Cpn:A', name: 'LLM', params: { outputs: { content: {} } }, downstream: [], upstream: [] },
  },
  globals: {},
  variables: {},
  names: {},
};
const scope = (
  globals: Record<string, unknown>,
  outputs: Record<string, Record<string, unknown>> = {},
): VariableScope => ({
  canvas,
  globals,
  outputs,
});

describe(compareSwitchItem.name, () => {
  it('knows exactly the 12 RAGFlow operators', () => {
    expect(SWITCH_OPERATORS).toHaveLength(12);
  });

  it.each([
    // contains / not contains: str() coercion, case-insensitive, empty value always contained
    ['Hello World', 'contains', 'WORLD', true],
    ['Hello', 'contains', '', true],
    [null, 'contains', 'x', false],
    [['a', 'b'], 'contains', "['a', 'b']", true],
    ['Not Found', 'not contains', 'not found', false],
    ['AAPL', 'not contains', 'not found', true],
    // start with / end with
    ['RAGFlow', 'start with', 'rag', true],
    ['RAGFlow', 'start with', 'flow', false],
    ['RAGFlow', 'end with', 'FLOW', true],
    ['RAGFlow', 'end with', 'rag', false],
    // empty / not empty: Python falsiness
    ['', 'empty', '', true],
    [[], 'empty', '', true],
    [{}, 'empty', '', true],
    [null, 'empty', '', true],
    ['x', 'empty', '', false],
    [0, 'empty', '0', true],
    [[1], 'not empty', '', true],
    ['', 'not empty', '', false],
    // = and ≠: no coercion beyond the number rule
    ['Yes', '=', 'yes', false],
    ['上海', '=', '上海', true],
    [1, '=', '1', true],
    [1.5, '=', '1.50', true],
    [true, '=', '1', true],
    [['a'], '=', "['a']", false],
    ['a', '≠', 'b', true],
    [2, '≠', '2.0', false],
    // ordering: float when both convert, else native string order
    ['10', '>', '9', true],
    ['b', '>', 'a', true],
    ['abc', '<', 'abd', true],
    [3, '≥', '3', true],
    [3, '≤', '2.5', false],
    ['2', '≤', '2', true],
  ] as const)('%j %s %j → %s', (input, op, value, expected) => {
    expect(compareSwitchItem(input, op, value)).toBe(expected);
  });

  it.each([
    [1, '=', ''],
    [2, 'empty', 'abc'],
    [true, 'contains', 'true'],
    [null, '>', '1'],
    ['a', 'between', 'b'],
  ] as const)('%j %s %j raises (the Switch ends in error)', (input, op, value) => {
    expect(() => compareSwitchItem(input, op, value)).toThrow();
  });
});

describe(evaluateSwitch.name, () => {
  const params = (conditions: SwitchParams['conditions']): SwitchParams => ({
    conditions,
    end_cpn_ids: ['Else'],
  });

  const cities = params([
    { logical_operator: 'and', items: [{ cpn_id: 'sys.query', operator: '=', value: '上海' }], to: ['Sh'] },
    {
      logical_operator: 'and',
      items: [{ cpn_id: '{sys.query}', operator: '=', value: '北京' }],
      to: ['Bj1', 'Bj2'],
    },
    {
      logical_operator: 'and',
      items: [{ cpn_id: 'sys.query', operator: 'contains', value: '' }],
      to: ['Any'],
    },
  ]);

  it.each([
    ['the first matching condition wins, later ones are not evaluated', '上海', ['Sh'], 0],
    ['a later condition matches with its whole `to`', '北京', ['Bj1', 'Bj2'], 1],
    ['a catch-all third condition', '深圳', ['Any'], 2],
  ])('%s', (_case, query, next, matched) => {
    expect(evaluateSwitch(scope({ 'sys.query': query }), cities)).toMatchObject({ next, matched });
  });

  it('goes to end_cpn_ids when nothing matches', () => {
    expect(
      evaluateSwitch(scope({ 'sys.query': '深圳' }), params(cities.conditions.slice(0, 2))),
    ).toMatchObject({
      next: ['Else'],
      matched: -1,
    });
  });

  it.each([
    [
      'AND with every item skipped never matches',
      'and',
      [{ cpn_id: '', operator: '=', value: 'x' }],
      ['Else'],
    ],
    ['AND with no items never matches', 'and', [], ['Else']],
    [
      'OR matches on the first true item',
      'or',
      [
        { cpn_id: 'sys.query', operator: '=', value: 'no' },
        { cpn_id: 'sys.query', operator: '=', value: 'q' },
      ],
      ['T'],
    ],
    [
      'AND needs every item',
      'and',
      [
        { cpn_id: 'sys.query', operator: '=', value: 'q' },
        { cpn_id: 'Cpn:A@content', operator: 'not empty', value: '' },
      ],
      ['Else'],
    ],
    [
      'AND with all true',
      'and',
      [
        { cpn_id: 'sys.query', operator: '=', value: 'q' },
        { cpn_id: 'Cpn:A@content', operator: 'empty', value: '' },
      ],
      ['T'],
    ],
    [
      'anything but "and" is OR',
      'AND',
      [
        { cpn_id: 'sys.query', operator: '=', value: 'q' },
        { cpn_id: 'Cpn:A@content', operator: 'not empty', value: '' },
      ],
      ['T'],
    ],
  ])('%s', (_case, logical, items, next) => {
    const decision = evaluateSwitch(
      scope({ 'sys.query': 'q' }),
      params([{ logical_operator: logical, items, to: ['T'] }]),
    );
    expect(decision.next).toEqual(next);
  });

  it('stops at the first OR item that is true (a later raising item is never evaluated)', () => {
    const decision = evaluateSwitch(
      scope({ 'sys.query': 'q', 'env.n': 1 }),
      params([
        {
          logical_operator: 'or',
          items: [
            { cpn_id: 'sys.query', operator: '=', value: 'q' },
            { cpn_id: 'env.n', operator: '=', value: 'not a number' },
          ],
          to: ['T'],
        },
      ]),
    );
    expect(decision).toEqual({ next: ['T'], matched: 0, inputs: { 'sys.query': 'q' } });
  });
});
