import type { Canvas } from './dsl.schema';
import { listFilterMatches, listOperations } from './list-operations';
import type { VariableScope } from './variable-ref';

const canvas: Canvas = {
  components: {
    'D:Rows': { id: 'D:Rows', name: 'DataOperations', params: {}, downstream: [], upstream: [] },
  },
  globals: {},
  variables: {},
  names: {},
};
const rows = [
  { id: 2, score: 0.88, title: 'Beta' },
  { id: 3, score: 0.76, title: 'Gamma' },
  { id: 1, score: 0.91, title: 'Alpha' },
];
const scope = (list: unknown): VariableScope => ({
  canvas,
  globals: { 'env.list': list },
  outputs: { 'D:Rows': { result: list } },
});
const run = (list: unknown, params: Record<string, unknown>) =>
  listOperations(scope(list), { query: 'D:Rows@result', ...params });

describe(listOperations.name, () => {
  it('sorts dicts by sort_by, descending, and gives first and last', () => {
    const out = run(rows, { operations: 'sort', sort_by: 'score', sort_method: 'desc' });
    expect(out.result.map((r) => (r as { title: string }).title)).toEqual(['Alpha', 'Beta', 'Gamma']);
    expect(out.first).toEqual(rows[2]);
    expect(out.last).toEqual(rows[1]);
  });

  it.each([
    [{ operations: 'nth', n: 1 }, [10]],
    [{ operations: 'nth', n: -1 }, [30]],
    [{ operations: 'nth', n: 0 }, []],
    [{ operations: 'nth', n: 9 }, []],
    [{ operations: 'head', n: 2 }, [10, 20]],
    [{ operations: 'topn', n: 2 }, [10, 20]],
    [{ operations: 'tail', n: 2 }, [20, 30]],
    [{ operations: 'head', n: 0 }, []],
    [{ operations: 'sort', sort_method: 'desc' }, [30, 20, 10]],
  ])('%j on [10, 20, 30] → %j', (params, result) => {
    expect(run([10, 20, 30], params).result).toEqual(result);
  });

  it('strict mode refuses an n out of range', () => {
    expect(() => run([1], { operations: 'nth', n: 2, strict: true })).toThrow(
      'nth requires n to be within the valid range in strict mode, got 2.',
    );
    expect(() => run([1], { operations: 'head', n: 0, strict: 'true' })).toThrow(/head requires n/);
  });

  it('filters stringified items and drops duplicates keeping the first', () => {
    expect(
      run(['apple', 'banana', 3], { operations: 'filter', filter: { operator: 'contains', value: 'an' } })
        .result,
    ).toEqual(['banana']);
    expect(run([1, 2], { operations: 'filter', filter: { operator: '≠', value: '1' } }).result).toEqual([2]);
    expect(run([{ a: 1, b: 2 }, { b: 2, a: 1 }, 3, 3], { operations: 'drop_duplicates' }).result).toEqual([
      { a: 1, b: 2 },
      3,
    ]);
  });

  it('refuses an input that is not a list, and an unknown operation', () => {
    expect(() => run('text', { operations: 'head', n: 1 })).toThrow(
      'The input of List Operations should be an array.',
    );
    expect(() => run([1], { operations: 'shuffle' })).toThrow(/shuffle is not supported/);
  });

  it("fails like RAGFlow when the DSL's outputs declare only result (all.json's ListOperations:Sort)", () => {
    expect(() =>
      run(rows, { operations: 'sort', sort_by: 'score', outputs: { result: { type: 'Array<Object>' } } }),
    ).toThrow("KeyError 'first'");
    expect(run([1], { operations: 'head', n: 1, outputs: { result: {}, first: {}, last: {} } }).first).toBe(
      1,
    );
  });
});

describe(listFilterMatches.name, () => {
  it.each([
    ['abc', 'start with', 'ab', true],
    ['abc', 'end with', 'bc', true],
    [null, '=', '', true],
    [true, '=', 'True', true],
    ['abc', 'unknown', 'a', false],
  ])('%j %s %j → %s', (item, op, value, expected) => {
    expect(listFilterMatches(item, op as string, value as string)).toBe(expected);
  });
});
