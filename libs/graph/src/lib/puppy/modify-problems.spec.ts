import type { GraphException } from '../graph.exception';
import { validateWorkflow } from './parse-workflow';

const modifyWorkflow = (data: Record<string, unknown>) => ({
  blocks: {
    in: { label: 'in', type: 'structured', data: { content: { a: [1] } } },
    out: { label: 'out', type: 'structured', data: { content: null } },
  },
  edges: {
    m: {
      type: 'modify',
      data: { content: '{{in}}', inputs: { in: 'in' }, outputs: { out: 'out' }, ...data },
    },
  },
});

function fieldsOf(raw: unknown): string[] {
  try {
    validateWorkflow(raw);
  } catch (err) {
    return (err as GraphException).problems.map((p) => `${p.edge} ${p.field}: ${p.message}`);
  }
  return [];
}

describe('modify edges at save', () => {
  it.each([
    ['get', { path: ['a'] }],
    ['delete', { path: ['a', 0] }],
    ['append', { path: ['a'], value: '{{in}}' }],
    ['insert', { path: ['a'], index: -1, value: 'x' }],
    ['sort', { path: ['a'], reverse: true }],
    ['set_value', { path: ['b'], value: 'x {{in}}' }],
    ['get_keys', { max_depth: 100 }],
    ['get_values', { max_depth: -1 }],
    ['variable_replace', { plugins: { n: 'Bob' } }],
    ['set_operation', { path1: ['a'], path2: ['a'], operation: 'intersection' }],
  ])('accepts edit_structured %s', (type, params) => {
    expect(
      fieldsOf(
        modifyWorkflow({ modify_type: 'edit_structured', extra_configs: { operations: [{ type, params }] } }),
      ),
    ).toEqual([]);
  });

  it.each([
    [
      'an unknown operation',
      { modify_type: 'edit_structured', extra_configs: { operations: [{ type: 'shuffle', params: {} }] } },
      'm data.extra_configs.operations.0.type: unknown edit_structured operation "shuffle"',
    ],
    [
      'a value that is not text (PuppyEngine fills its placeholders with a regex)',
      {
        modify_type: 'edit_structured',
        extra_configs: { operations: [{ type: 'set_value', params: { path: ['a'], value: 5 } }] },
      },
      'm data.extra_configs.operations.0.params.value: value is read as text',
    ],
    [
      'a non-integer insert index',
      {
        modify_type: 'edit_structured',
        extra_configs: { operations: [{ type: 'insert', params: { path: [], index: 1.5 } }] },
      },
      "m data.extra_configs.operations.0.params.index: insert's index is an integer",
    ],
    [
      'an unknown set operation',
      {
        modify_type: 'edit_structured',
        extra_configs: { operations: [{ type: 'set_operation', params: { operation: 'xor' } }] },
      },
      'm data.extra_configs.operations.0.params.operation: unknown set operation "xor"',
    ],
    [
      'a content that is not text',
      { modify_type: 'copy', content: { a: 1 } },
      "m data.content: a modify edge's content is text",
    ],
    [
      'an unknown conversion mode',
      { modify_type: 'convert2structured', extra_configs: { conversion_mode: 'yaml' } },
      'm data.extra_configs.conversion_mode: unknown conversion_mode "yaml"',
    ],
    [
      'a length_separator that is not a positive integer',
      {
        modify_type: 'convert2structured',
        extra_configs: { conversion_mode: 'split_by_length', length_separator: 0 },
      },
      'm data.extra_configs.length_separator: length_separator is a positive integer',
    ],
    [
      'an empty delimiter',
      {
        modify_type: 'convert2structured',
        extra_configs: { conversion_mode: 'split_by_character', list_separator: [''] },
      },
      'm data.extra_configs.list_separator: list_separator is a list of non-empty texts',
    ],
    [
      'a slice that is not two integers',
      { modify_type: 'edit_text', extra_configs: { slice: [0] } },
      'm data.extra_configs.slice: slice is [start, end]',
    ],
  ])('refuses %s, naming the field', (_name, data, message) => {
    expect(fieldsOf(modifyWorkflow(data)).join('\n')).toContain(message);
  });
});
