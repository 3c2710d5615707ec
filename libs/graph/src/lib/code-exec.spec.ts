import {
  codeExecArguments,
  codeExecOutputs,
  codeExecParams,
  inferActualType,
  renderCanonicalContent,
} from './code-exec';
import type { Canvas } from './dsl.schema';
import type { VariableScope } from './variable-ref';

const canvas: Canvas = {
  components: {
    'UserFillUp:In': { id: 'UserFillUp:In', name: 'UserFillUp', params: {}, downstream: [], upstream: [] },
  },
  globals: {},
  variables: {},
  names: {},
};
const scope: VariableScope = {
  canvas,
  globals: { 'sys.query': 'hi' },
  outputs: { 'UserFillUp:In': { x: 21, doc: '{"a": [1, 2]}' } },
};

describe(codeExecParams.name, () => {
  it.each([
    ['python', 'python'],
    ['python3', 'python'],
    ['nodejs', 'javascript'],
    ['JavaScript', 'javascript'],
  ])('reads lang %s as %s', (lang, language) => {
    expect(codeExecParams({ lang, script: 'x' }).language).toBe(language);
  });

  it('refuses an unknown language and an empty script, naming them', () => {
    expect(() => codeExecParams({ lang: 'ruby', script: 'x' })).toThrow('Unsupported language: ruby');
    expect(() => codeExecParams({ lang: 'python', script: '  ' })).toThrow('Script is empty');
  });

  it("declares RAGFlow's default outputs when the canvas has none", () => {
    expect(Object.keys(codeExecParams({ script: 'x' }).outputs)).toEqual(['result', 'attachments']);
  });
});

describe(codeExecArguments.name, () => {
  it('resolves each reference (paths walk JSON strings); an empty one is None', () => {
    const params = codeExecParams({
      script: 'x',
      arguments: { x: 'UserFillUp:In@x', a: 'UserFillUp:In@doc.a', q: 'sys.query', none: '' },
    });
    expect(codeExecArguments(scope, params)).toEqual({ x: 21, a: [1, 2], q: 'hi', none: null });
  });

  it('fails on a reference to nothing, as RAGFlow does', () => {
    const params = codeExecParams({ script: 'x', arguments: { y: 'Nope:X@y' } });
    expect(() => codeExecArguments(scope, params)).toThrow("Can't find variable: 'Nope:X@y'");
  });
});

describe(codeExecOutputs.name, () => {
  const params = (outputs: Record<string, unknown>) => codeExecParams({ script: 'x', outputs });

  it('writes the value to the one business output, with raw_result, actual_type and content', () => {
    expect(codeExecOutputs(params({ result: { type: 'Number', value: '' } }), 42)).toEqual({
      raw_result: 42,
      actual_type: 'Number',
      result: 42,
      _ERROR: '',
      _ARTIFACTS: null,
      _ATTACHMENT_CONTENT: '',
      attachments: [],
      content: '42',
    });
  });

  it('picks the business output among system ones and accepts Array<…> element types', () => {
    const out = codeExecOutputs(
      params({ items: { type: 'Array<String>' }, attachments: { type: 'Array<String>' }, content: {} }),
      ['a', 'b'],
    );
    expect(out['items']).toEqual(['a', 'b']);
    expect(out['actual_type']).toBe('Array<String>');
  });

  it.each([
    [
      { result: { type: 'Number' } },
      'forty-two',
      'CodeExec contract mismatch at value: expected type Number, got String',
    ],
    [{ result: { type: 'Number' } }, true, 'expected type Number, got Boolean'],
    [
      { result: { type: 'Array<Number>' } },
      [1, 'x'],
      'CodeExec contract mismatch at [1]: expected type Number, got String',
    ],
    [{ a: {}, b: {} }, 1, 'CodeExec contract must contain exactly one business output, got 2'],
    [{ content: {} }, 1, 'CodeExec reserved output name is not allowed: content'],
    [{ 'a.b': {} }, 1, "CodeExec business output name must not contain '.': a.b"],
    [{ result: { type: 'Tuple' } }, 1, 'Unsupported expected type: Tuple'],
  ])('refuses outputs %j for %j: %s', (outputs, value, message) => {
    expect(() => codeExecOutputs(params(outputs), value)).toThrow(message);
  });
});

describe(renderCanonicalContent.name, () => {
  it.each([
    [null, ''],
    ['text', 'text'],
    [true, 'True'],
    [2.5, '2.5'],
    [{ b: 1, a: ['é', null] }, '{\n  "a": [\n    "é",\n    null\n  ],\n  "b": 1\n}'],
    [[], '[]'],
  ])('renders %j as Python does', (value, text) => {
    expect(renderCanonicalContent(value)).toBe(text);
  });

  it('infers RAGFlow type names', () => {
    expect([null, 1, 'a', {}, [], [1, 'a'], [[1]]].map(inferActualType)).toEqual([
      'Null',
      'Number',
      'String',
      'Object',
      'Array<Any>',
      'Array<Any>',
      'Array<Array<Number>>',
    ]);
  });
});
