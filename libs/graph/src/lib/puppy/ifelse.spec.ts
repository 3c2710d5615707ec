import {
  IFELSE_CONDITIONS,
  combineConditions,
  evaluateCondition,
  evaluateIfElse,
  operationProblem,
} from './ifelse';

describe(evaluateCondition.name, () => {
  it('knows the 12 PuppyEngine conditions', () => {
    expect(IFELSE_CONDITIONS).toHaveLength(12);
  });

  it.each([
    ['is_empty', '', undefined, true],
    ['is_empty', [], undefined, true],
    ['is_empty', 'x', undefined, false],
    ['is_not_empty', 'world', undefined, true],
    ['is_not_empty', {}, undefined, false],
    ['contain', 'world', 'd', true],
    ['contain', 'world', 'z', false],
    ['contain', ['a', 'b'], 'b', true],
    ['contain', { k: 'v' }, 'k', true],
    ['contain', { k: 'v' }, 'v', true],
    ['contain', 'world', undefined, false],
    ['not_contain', 'world', 'z', true],
    ['not_contain', 'world', 'w', false],
    ['greater_than_n_chars', 'hello', 4, true],
    ['greater_than_n_chars', 'hello', 5, false],
    ['greater_than_n_chars', ['hello'], 0, false],
    ['less_than_n_chars', '野外', 3, true],
    ['less_than_n_chars', 'hello', 5, false],
    ['is', 'world', 'world', true],
    ['is', 'world', 'World', false],
    ['is', 1, 1, true],
    ['is_not', 'world', 'x', true],
    ['is_not', 'world', 'world', false],
    ['is_list', ['a'], undefined, true],
    ['is_list', 'a', undefined, false],
    ['is_dict', { a: 1 }, undefined, true],
    ['is_dict', ['a'], undefined, false],
    ['greater_than_n', [1, 2, 3], 2, true],
    ['greater_than_n', { a: 1 }, 1, false],
    ['greater_than_n', 'abc', 1, false],
    ['less_than_n', [1], 2, true],
    ['less_than_n', [1, 2], 2, false],
  ] as const)('%s(%j, %j) = %s', (condition, content, value, expected) => {
    expect(evaluateCondition(condition, content, value === undefined ? {} : { value })).toBe(expected);
  });
});

describe(combineConditions.name, () => {
  it.each([
    [[true, true], ['and', '/'], true],
    [[true, false], ['and', '/'], false],
    [[false, true], ['or', '/'], true],
    [[false, false], ['or', '/'], false],
    // left to right, no precedence: (true or false) and false
    [[true, false, false], ['or', 'and', '/'], false],
    [[false, true, true], ['and', 'or', '/'], true],
    [[true], ['/'], true],
  ])('%j with %j = %s', (results, operations, expected) => {
    expect(combineConditions(results, operations)).toBe(expected);
  });

  it.each([
    [['and', 'and'], 1, 'use `/` instead'],
    [['/', '/'], 0, 'None operation not supported in between conditions'],
    [['xor', '/'], 0, 'Unsupported operation: xor'],
    [[], 0, 'must not be empty'],
  ])('%j is refused at condition %i', (operations, index, message) => {
    expect(operationProblem(operations)).toEqual({ index, message: expect.stringContaining(message) });
    if (operations.length) {
      expect(() =>
        combineConditions(
          operations.map(() => true),
          operations,
        ),
      ).toThrow(message);
    }
  });
});

describe(evaluateIfElse.name, () => {
  const cases = {
    case1: {
      conditions: [
        { block: '1', condition: 'is_empty' as const, parameters: {}, operation: 'and' },
        { block: '2', condition: 'is' as const, parameters: { value: 'world' }, operation: '/' },
      ],
      thens: [{ from: '1', to: '3' }],
    },
    case2: {
      conditions: [
        { block: '1', condition: 'is_not_empty' as const, parameters: {}, operation: 'or' },
        { block: '2', condition: 'contain' as const, parameters: { value: 'd' }, operation: '/' },
      ],
      thens: [{ from: '2', to: '4' }],
    },
  };

  it('applies every satisfied case, not the first only (ifelse.json)', () => {
    expect(evaluateIfElse({ cases }, { '1': '', '2': 'world' })).toEqual({ '3': '', '4': 'world' });
  });

  it('writes only the blocks of the satisfied cases', () => {
    expect(evaluateIfElse({ cases }, { '1': '', '2': 'worl' })).toEqual({});
    expect(evaluateIfElse({ cases }, { '1': 'x', '2': 'hi' })).toEqual({ '4': 'hi' });
  });
});
