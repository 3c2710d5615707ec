import { type ModifyType, runModify } from './modify';

// [name, modify_type, content, extra_configs, what PuppyEngine's ModifierFactory.execute returns]:
// the expected values were produced by running archived/PuppyEngine/ModularEdges/ModifyEdge on
// these inputs (python3, upstream code unchanged).
const UPSTREAM: [string, ModifyType, unknown, Record<string, unknown>, unknown][] = [
  [
    'get_keys lists every leaf path',
    'edit_structured',
    {
      a: {
        b: 1,
        c: [2, 3],
      },
      d: 'x',
    },
    {
      operations: [
        {
          type: 'get_keys',
          params: {
            max_depth: -1,
          },
        },
      ],
    },
    [['a', 'b'], ['a', 'c', 0], ['a', 'c', 1], ['d']],
  ],
  [
    'get_keys stops at max_depth',
    'edit_structured',
    {
      a: {
        b: 1,
        c: [2, 3],
      },
      d: 'x',
    },
    {
      operations: [
        {
          type: 'get_keys',
          params: {
            max_depth: 1,
          },
        },
      ],
    },
    [['a'], ['d']],
  ],
  [
    'get_values reads every leaf',
    'edit_structured',
    {
      a: {
        b: 1,
        c: [2, 3],
      },
      d: 'x',
    },
    {
      operations: [
        {
          type: 'get_values',
          params: {
            max_depth: 100,
          },
        },
      ],
    },
    [1, 2, 3, 'x'],
  ],
  [
    'get_keys of a scalar is one empty path',
    'edit_structured',
    5,
    {
      operations: [
        {
          type: 'get_keys',
          params: {},
        },
      ],
    },
    [[]],
  ],
  [
    'delete removes a key',
    'edit_structured',
    {
      a: 1,
      b: 2,
    },
    {
      operations: [
        {
          type: 'delete',
          params: {
            path: ['a'],
          },
        },
      ],
    },
    {
      b: 2,
    },
  ],
  [
    'delete removes a list item, negative index too',
    'edit_structured',
    {
      a: [1, 2, 3],
    },
    {
      operations: [
        {
          type: 'delete',
          params: {
            path: ['a', -1],
          },
        },
      ],
    },
    {
      a: [1, 2],
    },
  ],
  [
    'delete of a missing path changes nothing',
    'edit_structured',
    {
      a: [1],
    },
    {
      operations: [
        {
          type: 'delete',
          params: {
            path: ['a', 5],
          },
        },
      ],
    },
    {
      a: [1],
    },
  ],
  [
    'set_value replaces',
    'edit_structured',
    {
      a: {
        b: 1,
      },
    },
    {
      operations: [
        {
          type: 'set_value',
          params: {
            path: ['a', 'b'],
            value: 'new',
          },
        },
      ],
    },
    {
      a: {
        b: 'new',
      },
    },
  ],
  [
    'set_value creates the missing dicts',
    'edit_structured',
    {},
    {
      operations: [
        {
          type: 'set_value',
          params: {
            path: ['a', 'b', 'c'],
            value: 'v',
          },
        },
      ],
    },
    {
      a: {
        b: {
          c: 'v',
        },
      },
    },
  ],
  [
    'set_value pads a short list with dicts',
    'edit_structured',
    {
      a: [],
    },
    {
      operations: [
        {
          type: 'set_value',
          params: {
            path: ['a', 2, 'k'],
            value: 'v',
          },
        },
      ],
    },
    {
      a: [
        {},
        {},
        {
          k: 'v',
        },
      ],
    },
  ],
  [
    "set_value past a list's end changes nothing",
    'edit_structured',
    [1],
    {
      operations: [
        {
          type: 'set_value',
          params: {
            path: [3],
            value: 'v',
          },
        },
      ],
    },
    [1],
  ],
  [
    'append adds to the list at path',
    'edit_structured',
    {
      a: [1],
    },
    {
      operations: [
        {
          type: 'append',
          params: {
            path: ['a'],
            value: 'x',
          },
        },
      ],
    },
    {
      a: [1, 'x'],
    },
  ],
  [
    'append to a non-list changes nothing',
    'edit_structured',
    {
      a: 't',
    },
    {
      operations: [
        {
          type: 'append',
          params: {
            path: ['a'],
            value: 'x',
          },
        },
      ],
    },
    {
      a: 't',
    },
  ],
  [
    'insert at an index',
    'edit_structured',
    [1, 2, 3],
    {
      operations: [
        {
          type: 'insert',
          params: {
            path: [],
            index: 1,
            value: 'x',
          },
        },
      ],
    },
    [1, 'x', 2, 3],
  ],
  [
    'insert clamps and counts from the end',
    'edit_structured',
    [1, 2, 3],
    {
      operations: [
        {
          type: 'insert',
          params: {
            path: [],
            index: -1,
            value: 'y',
          },
        },
        {
          type: 'insert',
          params: {
            path: [],
            index: 99,
            value: 'z',
          },
        },
      ],
    },
    [1, 2, 'y', 3, 'z'],
  ],
  [
    'sort ascending',
    'edit_structured',
    {
      a: [3, 1, 2],
    },
    {
      operations: [
        {
          type: 'sort',
          params: {
            path: ['a'],
          },
        },
      ],
    },
    {
      a: [1, 2, 3],
    },
  ],
  [
    'sort descending',
    'edit_structured',
    {
      a: ['b', 'c', 'a'],
    },
    {
      operations: [
        {
          type: 'sort',
          params: {
            path: ['a'],
            reverse: true,
          },
        },
      ],
    },
    {
      a: ['c', 'b', 'a'],
    },
  ],
  [
    'sort of items Python cannot order changes nothing',
    'edit_structured',
    [3, 'a', 1],
    {
      operations: [
        {
          type: 'sort',
          params: {
            path: [],
          },
        },
      ],
    },
    [3, 'a', 1],
  ],
  [
    'variable_replace fills string values',
    'edit_structured',
    {
      a: 'hi {{n}}',
      b: ['{{n}}!', 1],
      c: '{{m}}',
    },
    {
      operations: [
        {
          type: 'variable_replace',
          params: {
            plugins: {
              n: 'Bob',
            },
          },
        },
      ],
    },
    {
      a: 'hi Bob',
      b: ['Bob!', 1],
      c: '{{m}}',
    },
  ],
  [
    'set_operation union of two paths',
    'edit_structured',
    {
      x: [1, 2, 2],
      y: [2, 3],
    },
    {
      operations: [
        {
          type: 'set_operation',
          params: {
            path1: ['x'],
            path2: ['y'],
            operation: 'union',
          },
        },
      ],
    },
    [1, 2, 3],
  ],
  [
    'set_operation intersection',
    'edit_structured',
    {
      x: [1, 2, 3],
      y: [2, 3, 4],
    },
    {
      operations: [
        {
          type: 'set_operation',
          params: {
            path1: ['x'],
            path2: ['y'],
            operation: 'intersection',
          },
        },
      ],
    },
    [2, 3],
  ],
  [
    'set_operation difference drops unhashable items',
    'edit_structured',
    {
      x: [
        1,
        2,
        {
          k: 1,
        },
      ],
      y: [2],
    },
    {
      operations: [
        {
          type: 'set_operation',
          params: {
            path1: ['x'],
            path2: ['y'],
            operation: 'difference',
          },
        },
      ],
    },
    [1],
  ],
  [
    'set_operation symmetric_difference',
    'edit_structured',
    {
      x: [1, 2],
      y: [2, 3],
    },
    {
      operations: [
        {
          type: 'set_operation',
          params: {
            path1: ['x'],
            path2: ['y'],
            operation: 'symmetric_difference',
          },
        },
      ],
    },
    [1, 3],
  ],
  [
    'set_operation of a non-list is empty',
    'edit_structured',
    {
      x: 1,
      y: [2],
    },
    {
      operations: [
        {
          type: 'set_operation',
          params: {
            path1: ['x'],
            path2: ['y'],
          },
        },
      ],
    },
    [],
  ],
  [
    'operations chain: get then sort',
    'edit_structured',
    {
      a: {
        l: [2, 1],
      },
    },
    {
      operations: [
        {
          type: 'get',
          params: {
            path: ['a'],
          },
        },
        {
          type: 'sort',
          params: {
            path: ['l'],
          },
        },
      ],
    },
    {
      l: [1, 2],
    },
  ],
  [
    'get with a float index truncates like int()',
    'edit_structured',
    [10, 20],
    {
      operations: [
        {
          type: 'get',
          params: {
            path: [1.7],
          },
        },
      ],
    },
    20,
  ],
  [
    'parse_as_json reads a Python literal',
    'convert2structured',
    "{'a': [1, 'x'], 'b': None, 'c': True}",
    {
      conversion_mode: 'parse_as_json',
    },
    {
      a: [1, 'x'],
      b: null,
      c: true,
    },
  ],
  [
    'parse_as_json reads JSON',
    'convert2structured',
    '{"a": true, "b": null}',
    {
      conversion_mode: 'parse_as_json',
    },
    {
      a: true,
      b: null,
    },
  ],
  [
    'parse_as_json of a JSON scalar is the scalar',
    'convert2structured',
    '42',
    {
      conversion_mode: 'parse_as_json',
    },
    42,
  ],
  [
    'parse_as_json splits text and structures',
    'convert2structured',
    'Intro {\'k\': 1} middle [1, 2] and {"j": [3]} end',
    {
      conversion_mode: 'parse_as_json',
    },
    {
      text_1: 'Intro',
      dict_1: {
        k: 1,
      },
      text_2: 'middle',
      list_1: [1, 2],
      text_3: 'and',
      dict_2: {
        j: [3],
      },
      text_4: 'end',
    },
  ],
  [
    'parse_as_json of plain text',
    'convert2structured',
    '  just words  ',
    {
      conversion_mode: 'parse_as_json',
    },
    {
      text_1: 'just words',
    },
  ],
  [
    'parse_as_json skips a bracket that does not parse',
    'convert2structured',
    'a {not json} b [1]',
    {
      conversion_mode: 'parse_as_json',
    },
    {
      text_1: 'a {not json} b',
      list_1: [1],
    },
  ],
  [
    'parse_as_list reads a list',
    'convert2structured',
    "[1, 'two', {'t': 3}]",
    {
      conversion_mode: 'parse_as_list',
    },
    [
      1,
      'two',
      {
        t: 3,
      },
    ],
  ],
  [
    'parse_as_list wraps a dict',
    'convert2structured',
    "{'a': 1}",
    {
      conversion_mode: 'parse_as_list',
    },
    [
      {
        a: 1,
      },
    ],
  ],
  [
    'parse_as_list wraps a JSON scalar',
    'convert2structured',
    'null',
    {
      conversion_mode: 'parse_as_list',
    },
    [null],
  ],
  [
    'parse_as_list splits mixed text',
    'convert2structured',
    "This is ['a', 'b'] a {'key': 'value'} test.",
    {
      conversion_mode: 'parse_as_list',
    },
    [
      'This is',
      ['a', 'b'],
      'a',
      {
        key: 'value',
      },
      'test.',
    ],
  ],
  [
    'parse_as_list of an empty list falls through to segments',
    'convert2structured',
    '[]',
    {
      conversion_mode: 'parse_as_list',
    },
    [[]],
  ],
  [
    'parse_as_list of plain text',
    'convert2structured',
    ' words ',
    {
      conversion_mode: 'parse_as_list',
    },
    ['words'],
  ],
  [
    'parse_as_list of blank text',
    'convert2structured',
    '   ',
    {
      conversion_mode: 'parse_as_list',
    },
    [],
  ],
  [
    'split_by_character with a text of delimiters',
    'convert2structured',
    'a|b;c',
    {
      conversion_mode: 'split_by_character',
      list_separator: '|;',
    },
    ['a', 'b', 'c'],
  ],
  [
    'split_by_character with no delimiters',
    'convert2structured',
    'a,b',
    {
      conversion_mode: 'split_by_character',
      list_separator: [],
    },
    ['a,b'],
  ],
  [
    'split_by_character default is the comma',
    'convert2structured',
    'a, b,,c ',
    {
      conversion_mode: 'split_by_character',
    },
    ['a', 'b', 'c'],
  ],
  [
    'wrap_into_dict default key',
    'convert2structured',
    'hi',
    {},
    {
      value: 'hi',
    },
  ],
  [
    'edit_text: exclude last 1 keeps all (end -1 is the end)',
    'edit_text',
    'hello',
    {
      slice: [0, -1],
      sort_type: '/',
    },
    'hello',
  ],
  [
    'edit_text: exclude last 2',
    'edit_text',
    'hello',
    {
      slice: [0, -2],
      sort_type: '/',
    },
    'hel',
  ],
  [
    'edit_text: return last 3',
    'edit_text',
    'hello',
    {
      slice: [-3, -1],
      sort_type: '/',
    },
    'llo',
  ],
  [
    'edit_text: exclude first 2',
    'edit_text',
    'hello',
    {
      slice: [2, -1],
    },
    'llo',
  ],
  [
    'edit_text: first n past the end',
    'edit_text',
    'hello',
    {
      slice: [0, 100],
    },
    'hello',
  ],
  [
    'edit_text: descending sort',
    'edit_text',
    'hello',
    {
      sort_type: 'descending',
    },
    'ollhe',
  ],
  [
    'edit_text: null bounds',
    'edit_text',
    'hello',
    {
      slice: [null, null],
    },
    'hello',
  ],
];

describe('runModify against PuppyEngine', () => {
  it.each(UPSTREAM)('%s', (_name, type, content, extra, expected) => {
    expect(runModify(type, content, extra)).toEqual(expected);
  });
});
