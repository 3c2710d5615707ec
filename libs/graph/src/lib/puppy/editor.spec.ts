import { editorToEngine } from './editor';
import { validateWorkflow } from './parse-workflow';

type Json = Record<string, unknown>;

/** An editor workflow: text block `in` → the node → structured block `out`. */
const editor = (type: string, data: Json) => ({
  blocks: [
    { id: 'in', type: 'text', data: { label: 'In', content: 'a,b' } },
    { id: 'node', type, data },
    { id: 'out', type: 'structured', data: { label: 'Out', content: '' } },
  ],
  edges: [
    { source: 'in', target: 'node' },
    { source: 'node', target: 'out' },
  ],
});
const edgeOf = (type: string, data: Json) => (editorToEngine(editor(type, data)).edges as Json)['node'];
const io = { inputs: { in: 'In' }, outputs: { out: 'Out' } };

describe('editorToEngine, as PuppyFlow’s edgeNodeJsonBuilders', () => {
  it.each([
    ['chunkingAuto', {}, { type: 'chunk', data: { chunking_mode: 'auto', extra_configs: {}, ...io } }],
    [
      'chunkingByCharacter (delimiters)',
      { delimiters: ['|'] },
      {
        type: 'chunk',
        data: {
          chunking_mode: 'character',
          sub_chunking_mode: 'character',
          extra_configs: { delimiters: ['|'] },
          ...io,
        },
      },
    ],
    [
      'chunkingByCharacter (content JSON, else the defaults)',
      { content: '[";"]' },
      {
        type: 'chunk',
        data: {
          chunking_mode: 'character',
          sub_chunking_mode: 'character',
          extra_configs: { delimiters: [';'] },
          ...io,
        },
      },
    ],
    [
      'chunkingByLength',
      { sub_chunking_mode: 'size', extra_configs: { chunk_size: 50 } },
      {
        type: 'chunk',
        data: {
          chunking_mode: 'length',
          sub_chunking_mode: 'size',
          extra_configs: { chunk_size: 50, overlap: 20, handle_half_word: false },
          ...io,
        },
      },
    ],
    [
      'convert2structured (split by character)',
      { execMode: 'split by character', extra_configs: { list_separator: '[",", ";"]' } },
      {
        type: 'modify',
        data: {
          content: '{{In}}',
          modify_type: 'convert2structured',
          extra_configs: {
            conversion_mode: 'split_by_character',
            action_type: 'default',
            list_separator: [',', ';'],
          },
          ...io,
        },
      },
    ],
    [
      'convert2structured (JSON)',
      { execMode: 'JSON' },
      {
        type: 'modify',
        data: {
          content: '{{In}}',
          modify_type: 'convert2structured',
          extra_configs: { conversion_mode: 'parse_as_json', action_type: 'json' },
          ...io,
        },
      },
    ],
    [
      'convert2structured (wrap into dict)',
      { execMode: 'wrap into dict', extra_configs: { dict_key: 'k' } },
      {
        type: 'modify',
        data: {
          content: '{{In}}',
          modify_type: 'convert2structured',
          extra_configs: { conversion_mode: 'wrap_into_dict', action_type: 'default', dict_key: 'k' },
          ...io,
        },
      },
    ],
    [
      'editText (return last n)',
      { content: 'x {{In}}', extra_configs: { retMode: 'return last n', configNum: 3 } },
      {
        type: 'modify',
        data: {
          modify_type: 'edit_text',
          extra_configs: { slice: [-3, -1], sort_type: '/' },
          content: 'x {{In}}',
          ...io,
        },
      },
    ],
    [
      'editStructured (replace)',
      {
        type: 'replace',
        getConfigData: [
          { key: 'key', value: 'a' },
          { key: 'num', value: '0' },
        ],
        paramv: 'v',
      },
      {
        type: 'modify',
        data: {
          content: '{{In}}',
          modify_type: 'edit_structured',
          extra_configs: { operations: [{ type: 'set_value', params: { path: ['a', 0], value: 'v' } }] },
          ...io,
        },
      },
    ],
    [
      'editStructured (get_keys)',
      { type: 'get_keys', getConfigData: [{ key: 'key', value: 'a' }] },
      {
        type: 'modify',
        data: {
          content: '{{In}}',
          modify_type: 'edit_structured',
          extra_configs: { operations: [{ type: 'get_keys', params: { max_depth: 100 } }] },
          ...io,
        },
      },
    ],
    [
      'ifelse',
      {
        cases: [
          {
            conditions: [
              { id: 'in', condition: 'is greater than [N] characters', cond_v: '2', operation: 'AND' },
              { id: 'in', condition: 'contains', cond_v: 'a', operation: 'AND' },
            ],
            actions: [{ from_id: 'in', outputs: ['out'] }],
          },
          { conditions: 'broken' },
          { conditions: [{ id: 'in', condition: 'is empty', operation: 'OR' }] },
        ],
      },
      {
        type: 'ifelse',
        data: {
          cases: {
            case1: {
              conditions: [
                {
                  block: 'in',
                  condition: 'greater_than_n_chars',
                  parameters: { value: 2 },
                  operation: 'and',
                },
                { block: 'in', condition: 'contain', parameters: { value: 'a' }, operation: '/' },
              ],
              thens: [{ from: 'in', to: 'out' }],
            },
            case3: {
              conditions: [{ block: 'in', condition: 'is_empty', parameters: { value: '' }, operation: '/' }],
              thens: [{ from: 'in', to: 'out' }],
            },
          },
          ...io,
        },
      },
    ],
  ])('converts %s', (name, data, expected) => {
    const type = name.split(' ')[0];
    expect(edgeOf(type, data)).toEqual(expected);
  });

  it('gives chunkingByLength’s "tokenizer" through, refused at save naming the field', () => {
    expect(() => validateWorkflow(editor('chunkingByLength', { sub_chunking_mode: 'tokenizer' }))).toThrow(
      'edge node, field data.sub_chunking_mode: the length chunking has no sub_chunking_mode "tokenizer"',
    );
  });
});
