import type { Canvas } from './dsl.schema';
import { pyJsonDumps, pyStr } from './py-value';
import {
  getVariableValue,
  isWholeRef,
  referencedComponents,
  renderTemplate,
  resolveParam,
  setVariableValue,
  stripRef,
  type VariableScope,
} from './variable-ref';

const component = (id: string, params: Record<string, unknown> = {}) => ({
  id,
  name: 'LLM',
  params,
  downstream: [],
  upstream: [],
});
const canvas: Canvas = {
  components: {
    begin: component('begin'),
    'Agent:Foo': component('Agent:Foo', { outputs: { content: { type: 'string' }, structured: {} } }),
    'retrieval:0': component('retrieval:0'),
  },
  globals: {},
  variables: {},
  names: {},
};
const scope: VariableScope = {
  canvas,
  globals: { 'sys.query': 'Q1', 'env.counter': 3, 'env.obj': { key: 'v' }, 'env.list': ['a', 'b'] },
  outputs: {
    begin: { customer_review: 'late parcel' },
    'Agent:Foo': {
      content: '{"rows": [{"name": "x"}, {"name": "y"}]}',
      structured: { a: { b: [10, 20, 30] } },
      nothing: null,
    },
  },
};

describe(stripRef.name, () => {
  it.each([
    ['{sys.query}', 'sys.query'],
    ['{{ sys.query }}', 'sys.query'],
    ['  begin@x  ', 'begin@x'],
    ['{ {Agent:Foo@content} }', 'Agent:Foo@content'],
  ])('%j → %j', (raw, ref) => expect(stripRef(raw)).toBe(ref));
});

describe(getVariableValue.name, () => {
  it.each([
    ['sys.query', 'Q1'],
    ['{env.counter}', 3],
    ['env.obj', { key: 'v' }],
    ['begin@customer_review', 'late parcel'],
    ['Agent:Foo@structured.a.b.1', 20],
    ['Agent:Foo@structured.a.b.-1', 30],
    ['Agent:Foo@structured.a.b.7', null],
    ['Agent:Foo@structured.a.b.x', null],
    ['Agent:Foo@content.rows.0.name', 'x'],
    ['Agent:Foo@nothing.deeper', null],
    // declared but not produced → None; never declared → ""
    ['Agent:Foo@missing_but_undeclared', ''],
    ['retrieval:0@formalized_content', ''],
    ['begin@customer_review.x', null],
  ])('%s → %j', (ref, value) => expect(getVariableValue(scope, ref)).toEqual(value));

  it('looks sys/env names up whole: no path walk (env.obj.key is a missing key)', () => {
    expect(() => getVariableValue(scope, 'env.obj.key')).toThrow('no global variable "env.obj.key"');
  });

  it.each([['sys.nope'], ['Nope:X@content'], ['{Missing@x}']])('%s raises', (ref) => {
    expect(() => getVariableValue(scope, ref)).toThrow();
  });

  it('answers None for a declared output not produced yet', () => {
    const fresh = { ...scope, outputs: {} };
    expect(getVariableValue(fresh, 'Agent:Foo@content')).toBeNull();
  });
});

describe(isWholeRef.name, () => {
  it.each([
    ['sys.query', true],
    ['{sys.query}', true],
    ['begin@customer_review', true],
    ['Unknown@x', false],
    ['sys.missing', false],
    ['hello {sys.query}', false],
    [42, false],
  ])('%j → %s', (value, whole) => expect(isWholeRef(scope, value)).toBe(whole));

  it.each([
    ['begin@customer_review', 'late parcel'],
    ['env.list', ['a', 'b']],
    ['plain text', 'plain text'],
  ])('resolveParam(%j) → %j', (value, resolved) => expect(resolveParam(scope, value)).toEqual(resolved));
});

describe(renderTemplate.name, () => {
  it.each([
    ['{sys.query}shanghai', '  ', 'Q1shanghai'],
    ['a {sys.query} b', '', 'aQ1b'],
    ['hi {sys.query} / { {sys.query} } / {{sys.query}}', '', 'hiQ1/ Q1 / Q1'],
    ['list={env.list}', '', 'list=["a", "b"]'],
    ['obj={env.obj} n={env.counter}', '', 'obj={"key": "v"}n=3'],
    ['none={Agent:Foo@nothing}!', '', 'none=!'],
  ])('Message form: %j', (text, _pad, out) => {
    expect(
      renderTemplate(scope, text, (v) => (v === null ? '' : typeof v === 'string' ? v : pyJsonDumps(v))),
    ).toBe(out);
  });

  it.each([
    ['a {sys.query} b', 'a Q1 b'],
    ['{env.list}', "['a', 'b']"],
    ['x{begin@customer_review}y', 'xlate parcely'],
  ])('prompt form keeps spaces: %j', (text, out) => {
    expect(renderTemplate(scope, text, (v) => (v === null ? '' : pyStr(v)), false)).toBe(out);
  });
});

describe(referencedComponents.name, () => {
  it.each([
    [{ content: ['{Agent:Foo@content} and {begin@x}'] }, ['Agent:Foo', 'begin']],
    [{ query: 'begin@customer_review' }, []],
    [{ content: ['{sys.query} {Unknown@x}'] }, []],
  ])('%j → %j', (params, ids) => expect([...referencedComponents(params, canvas)]).toEqual(ids));
});

describe(setVariableValue.name, () => {
  it.each([
    ['env.counter', 4, { globals: { 'env.counter': 4 } }],
    ['Agent:Foo@content', 'new', { outputs: { 'Agent:Foo': { content: 'new' } } }],
    [
      'Agent:Foo@structured.a.c',
      1,
      { outputs: { 'Agent:Foo': { structured: { a: { b: [10, 20, 30], c: 1 } } } } },
    ],
    ['Agent:Foo@content.x.y', true, { outputs: { 'Agent:Foo': { content: { x: { y: true } } } } }],
  ])('%s ← %j', (exp, value, expected) => {
    expect(setVariableValue(scope, exp, value)).toMatchObject(expected);
  });
});
