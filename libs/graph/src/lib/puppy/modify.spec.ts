import { nestedGet, runModify } from './modify';

describe(runModify.name, () => {
  it.each([
    ['copy keeps the value', 'copy', { a: [1] }, {}, { a: [1] }],
    ['convert2text dumps structures as json.dumps', 'convert2text', { a: ['x', 1] }, {}, '{"a": ["x", 1]}'],
    ['convert2text escapes non-ASCII like json.dumps', 'convert2text', ['野'], {}, '["\\u91ce"]'],
    ['convert2text str()s the rest', 'convert2text', 12, {}, '12'],
    [
      'convert2structured wraps into a dict',
      'convert2structured',
      'hi',
      { conversion_mode: 'wrap_into_dict', dict_key: 'k' },
      { k: 'hi' },
    ],
    [
      'convert2structured parses JSON',
      'convert2structured',
      '[1, 2]',
      { conversion_mode: 'parse_as_json' },
      [1, 2],
    ],
    [
      'convert2structured splits by length',
      'convert2structured',
      'abcde',
      { conversion_mode: 'split_by_length', length_separator: 2 },
      ['ab', 'cd', 'e'],
    ],
    [
      'convert2structured splits by characters',
      'convert2structured',
      'a, b;c',
      { conversion_mode: 'split_by_character', list_separator: [',', ';'] },
      ['a', 'b', 'c'],
    ],
    [
      'convert2structured of an empty text is empty',
      'convert2structured',
      '',
      { conversion_mode: 'wrap_into_dict' },
      {},
    ],
    ['edit_text returns all by default', 'edit_text', 'hello world', {}, 'hello world'],
    ['edit_text slices', 'edit_text', 'hello world', { slice: [0, 5] }, 'hello'],
    ['edit_text slices from the end', 'edit_text', 'hello world', { slice: [-5, -1] }, 'world'],
    ['edit_text sorts', 'edit_text', 'cab', { sort_type: 'ascending' }, 'abc'],
    [
      'edit_structured get follows the path',
      'edit_structured',
      { FAQ: [{ q: 'a' }] },
      { operations: [{ type: 'get', params: { path: ['FAQ', 0, 'q'] } }] },
      'a',
    ],
    [
      'edit_structured get falls back to its default (agentic-rag: [0, "FAQ"] on a dict)',
      'edit_structured',
      { FAQ: [] },
      { operations: [{ type: 'get', params: { path: [0, 'FAQ'], default: 'Get Failed, value not exist' } }] },
      'Get Failed, value not exist',
    ],
  ] as const)('%s', (_name, type, content, extra, expected) => {
    expect(runModify(type, content, extra as Record<string, unknown>)).toEqual(expected);
  });

  it('fails naming an operation it does not know', () => {
    expect(() => runModify('edit_structured', {}, { operations: [{ type: 'shuffle', params: {} }] })).toThrow(
      'Unsupported operation type: shuffle',
    );
  });

  it('pads a list for set_value as upstream does, but not without bound', () => {
    const set = (index: number) =>
      runModify(
        'edit_structured',
        { items: [] },
        {
          operations: [{ type: 'set_value', params: { path: ['items', String(index), 'x'], value: 1 } }],
        },
      );
    expect(set(2)).toEqual({ items: [{}, {}, { x: 1 }] });
    expect(() => set(1_000_000_000)).toThrow('at most 10000 items are added');
  });

  it('does not change the content it was given (upstream edits the block in place)', () => {
    const content = { a: [2, 1] };
    runModify('edit_structured', content, { operations: [{ type: 'sort', params: { path: ['a'] } }] });
    expect(content).toEqual({ a: [2, 1] });
  });
});

describe(nestedGet.name, () => {
  it.each([
    [['*'], { a: 1 }, { a: 1 }],
    [['a', '1'], { a: [0, 'x'] }, 'x'],
    [['a', -1], { a: [0, 'x'] }, 'x'],
    [['a', 5], { a: [0] }, 'dflt'],
    [['b'], { a: 1 }, 'dflt'],
  ])('%j of %j = %j', (path, content, expected) => {
    expect(nestedGet(content, path, 'dflt')).toEqual(expected);
  });

  it('cannot index into a text', () => {
    expect(() => nestedGet('text', ['a'])).toThrow("Cannot index into str with key 'a'");
  });
});
