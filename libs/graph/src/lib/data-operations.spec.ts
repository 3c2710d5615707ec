import { dataOperations, literalEval } from './data-operations';
import type { Canvas } from './dsl.schema';
import { pyLiteralEval } from './py-literal';
import type { VariableScope } from './variable-ref';

const canvas: Canvas = {
  components: { 'U:In': { id: 'U:In', name: 'UserFillUp', params: {}, downstream: [], upstream: [] } },
  globals: {},
  variables: {},
  names: {},
};
const rows = [
  { id: 2, score: 0.88, title: 'Beta' },
  { id: 3, score: 0.76, title: 'Gamma' },
];
const scope: VariableScope = {
  canvas,
  globals: { 'env.sample_rows': rows, 'env.one': { id: 9, tags: ['x'] }, 'env.tag': 'demo', 'env.n': 5 },
  outputs: { 'U:In': { tag: 'from-form' } },
};

describe(dataOperations.name, () => {
  it("append_or_update sets each key on every row (all.json's DataOperations:UpdateSample)", () => {
    expect(
      dataOperations(scope, {
        operations: 'append_or_update',
        query: ['env.sample_rows'],
        updates: [
          { key: 'tag', value: 'demo' },
          { key: 'from', value: '{U:In@tag}' },
          { key: ' ', value: 'skipped' },
        ],
      }).result,
    ).toEqual(rows.map((r) => ({ ...r, tag: 'demo', from: 'from-form' })));
  });

  it('collects dicts from every query ref: lists flattened, non-dicts dropped', () => {
    expect(
      dataOperations(scope, {
        operations: 'select_keys',
        query: ['env.sample_rows', 'env.one', 'env.n'],
        select_keys: ['id'],
      }).result,
    ).toEqual([{ id: 2 }, { id: 3 }, { id: 9 }]);
  });

  it('combine turns repeated keys into lists', () => {
    expect(
      dataOperations(scope, { operations: 'combine', query: ['env.sample_rows', 'env.one'] }).result,
    ).toEqual({
      id: [2, 3, 9],
      score: [0.88, 0.76],
      title: ['Beta', 'Gamma'],
      tags: ['x'],
    });
  });

  it('filter_values keeps rows matching every rule; remove_keys and rename_keys rewrite rows', () => {
    expect(
      dataOperations(scope, {
        operations: 'filter_values',
        query: ['env.sample_rows'],
        filter_values: [
          { key: 'title', operator: 'start with', value: 'G' },
          { key: 'id', operator: '=', value: '3' },
        ],
      }).result,
    ).toEqual([rows[1]]);
    expect(
      dataOperations(scope, { operations: 'remove_keys', query: ['env.one'], remove_keys: ['tags'] }).result,
    ).toEqual([{ id: 9 }]);
    expect(
      dataOperations(scope, {
        operations: 'rename_keys',
        query: ['env.one'],
        rename_keys: [{ old_key: 'id', new_key: 'key' }],
      }).result,
    ).toEqual([{ tags: ['x'], key: 9 }]);
  });

  it('refuses an unknown operation naming it', () => {
    expect(() => dataOperations(scope, { operations: 'explode', query: [] })).toThrow(
      /explode is not supported/,
    );
  });
});

describe(literalEval.name, () => {
  it.each([
    ["{'a': 1, 'b': [True, None]}", { a: 1, b: [true, null] }],
    ['(1, 2)', [1, 2]],
    ['42', 42],
    ['3.5', 3.5],
    ['true', 'true'], // ast.literal_eval('true') fails: kept as written
    ['1.2.3', '1.2.3'],
    ['hello', 'hello'],
    ['"a" \'b\'', 'ab'],
  ])('%j → %j', (text, value) => {
    expect(literalEval(text)).toEqual(value);
  });

  it('walks dicts and lists', () => {
    expect(literalEval([{ x: '[1, 2]', y: 'plain' }])).toEqual([{ x: [1, 2], y: 'plain' }]);
  });
});

describe(pyLiteralEval.name, () => {
  it('refuses what is not one literal', () => {
    expect(() => pyLiteralEval('[1, 2')).toThrow(SyntaxError);
    expect(() => pyLiteralEval('1 2')).toThrow(/unexpected text/);
    expect(() => pyLiteralEval('os.system("x")')).toThrow(/malformed/);
  });
});
