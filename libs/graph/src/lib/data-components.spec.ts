import type { Canvas } from './dsl.schema';
import {
  aggregateVariables,
  assignVariables,
  beginOutputs,
  stringMerge,
  stringSplit,
  userFillUpInputSchema,
  userFillUpOutputs,
  userFillUpTips,
} from './data-components';
import type { VariableScope } from './variable-ref';

const canvas: Canvas = {
  components: {
    'U:In': { id: 'U:In', name: 'UserFillUp', params: {}, downstream: [], upstream: [] },
    'S:Split': { id: 'S:Split', name: 'StringTransform', params: {}, downstream: [], upstream: [] },
  },
  globals: {},
  variables: {},
  names: {},
};
const scope = (
  globals: Record<string, unknown> = {},
  outputs: Record<string, Record<string, unknown>> = {},
): VariableScope => ({
  canvas,
  globals,
  outputs,
});

describe(stringSplit.name, () => {
  it.each([
    ['hello world ragflow', [' '], ['hello', 'world', 'ragflow']],
    ['a,b;;c', [',', ';'], ['a', 'b', '', 'c']],
    ['x.y', ['.'], ['x', 'y']],
    ['', [','], ['']],
  ])('%j on %j → %j', (text, delimiters, parts) => {
    expect(stringSplit(scope({}, { 'U:In': { text } }), { split_ref: 'U:In@text', delimiters })).toEqual(
      parts,
    );
  });

  it('refuses a value that is not a string', () => {
    expect(() => stringSplit(scope({}, { 'U:In': { text: [1] } }), { split_ref: 'U:In@text' })).toThrow(
      'not a string',
    );
  });
});

describe(stringMerge.name, () => {
  it.each([
    ['{S:Split@result}', ['|'], 'hello|world|ragflow'],
    ['{U:In@n}: {U:In@text}', ['|'], '0: a'],
    ['{U:In@obj}', [','], '{"k": [1, 2]}'],
  ])('%j → %j', (script, delimiters, out) => {
    const s = scope(
      {},
      {
        'S:Split': { result: ['hello', 'world', 'ragflow'] },
        'U:In': { n: 0, text: 'a', obj: { k: [1, 2] } },
      },
    );
    expect(stringMerge(s, { script, delimiters })).toBe(out);
  });
});

describe(aggregateVariables.name, () => {
  it.each([
    [{ 'env.a': '', 'env.b': '2', 'env.c': 'c' }, { picked: '2' }],
    [{ 'env.a': '1', 'env.b': '2', 'env.c': 'c' }, { picked: '1' }],
    [{ 'env.a': '', 'env.b': 0, 'env.c': [] }, {}],
  ])('%j → %j (first truthy)', (globals, out) => {
    const params = {
      groups: [
        { group_name: 'picked', variables: [{ value: 'env.a' }, { value: 'env.b' }, { value: 'env.c' }] },
      ],
    };
    expect(aggregateVariables(scope(globals), params)).toEqual(out);
  });
});

describe(assignVariables.name, () => {
  const g = {
    'env.counter': 5,
    'env.zero': 0,
    'env.s': '',
    'env.list': [1],
    'env.more': [2, 3],
    'sys.query': 'Q',
  };
  it.each([
    ['overwrite', 'env.counter', 'env.zero', 0],
    ['set', 'env.s', 'q={sys.query}', 'q=Q'],
    ['set', 'env.counter', 9, 9],
    ['+=', 'env.counter', 1, 6],
    ['-=', 'env.counter', 2, 3],
    ['*=', 'env.counter', 2, 10],
    ['/=', 'env.counter', 0, 'ERROR:DIVIDE_BY_ZERO'],
    ['+=', 'env.s', 1, 'ERROR:VARIABLE_NOT_NUMBER or PARAMETER_NOT_NUMBER'],
    ['clear', 'env.list', undefined, []],
    ['append', 'env.list', 'env.counter', [1, 5]],
    ['extend', 'env.list', 'env.more', [1, 2, 3]],
    ['remove_first', 'env.more', undefined, [3]],
    ['remove_last', 'env.more', undefined, [2]],
  ])('%s %s with %j → %j', (operator, variable, parameter, value) => {
    expect(
      assignVariables(scope(g), { variables: [{ operator, variable, parameter }] }).globals[variable],
    ).toEqual(value);
  });

  it('applies entries in order (overwrite, then +=)', () => {
    const out = assignVariables(scope(g), {
      variables: [
        { operator: 'overwrite', variable: 'env.counter', parameter: 'env.zero' },
        { operator: '+=', variable: 'env.counter', parameter: 1 },
      ],
    });
    expect(out.globals['env.counter']).toBe(1);
  });

  it.each([
    [{ operator: 'set', parameter: 'x' }],
    [{ variable: 'env.s', parameter: 'x' }],
    [{ variable: 'env.s', operator: 'set' }],
  ])('refuses an incomplete entry %j', (entry) => {
    expect(() => assignVariables(scope(g), { variables: [entry] })).toThrow('Variable is not complete.');
  });

  it('refuses a literal for append', () => {
    expect(() =>
      assignVariables(scope(g), {
        variables: [{ operator: 'append', variable: 'env.list', parameter: 'lit' }],
      }),
    ).toThrow();
  });
});

describe(beginOutputs.name, () => {
  const form = { inputs: { customer_review: { type: 'line' } } };
  it.each([
    [form, { customer_review: { value: 'late' } }, 'q', { customer_review: 'late' }],
    [form, { customer_review: 'raw' }, 'q', { customer_review: 'raw' }],
    [form, undefined, 'the query', { customer_review: 'the query' }],
    [{ inputs: { a: {}, b: {} } }, {}, 'q', {}],
  ])('%j with inputs %j → %j', (params, inputs, query, outputs) => {
    expect(beginOutputs(params, inputs, query)).toEqual(outputs);
  });
});

describe('UserFillUp form', () => {
  const params = {
    tips: 'pick {sys.query} from {env.opts}',
    inputs: {
      demo: { name: 'Demo', type: 'options', optional: false },
      obj: { name: 'Obj', type: 'object', optional: true },
    },
  };

  it('asks for each field, the non-optional ones required', () => {
    expect(userFillUpInputSchema(params)).toEqual({
      type: 'object',
      properties: {
        demo: { description: 'Demo', 'x-ragflow-field': params.inputs.demo },
        obj: { description: 'Obj', 'x-ragflow-field': params.inputs.obj },
      },
      required: ['demo'],
    });
  });

  it('renders the tips, lists joined with ","', () => {
    expect(userFillUpTips(scope({ 'sys.query': 'Q', 'env.opts': ['a', 'b'] }), params)).toBe('pickQfroma,b');
  });

  it.each([
    [{ demo: 'text' }, { demo: 'text', obj: null }],
    [{ demo: { value: 'loop', name: 'Demo' } }, { demo: 'loop', obj: null }],
    [
      { demo: 'x', obj: '{"a": 1}' },
      { demo: 'x', obj: { a: 1 } },
    ],
  ])('takes the answer %j as outputs %j', (answer, outputs) => {
    expect(userFillUpOutputs(params, answer)).toEqual(outputs);
  });
});
