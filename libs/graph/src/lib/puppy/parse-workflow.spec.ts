import type { GraphException } from '../graph.exception';
import { editorToEngine } from './editor';
import { isPuppyWorkflow, validateWorkflow } from './parse-workflow';

const base = () => ({
  blocks: {
    '1': { label: 'a', type: 'text', data: { content: 'Mei' } },
    '2': { label: 'b', type: 'text', data: { content: '' } },
    '3': { label: 'c', type: 'text', data: { content: '' } },
  },
  edges: {
    'llm-1': {
      type: 'llm',
      data: {
        messages: [{ role: 'user', content: 'hi {{a}}' }],
        inputs: { '1': 'a' },
        outputs: { '2': 'b' },
      },
    },
  } as Record<string, unknown>,
  version: '0.2',
});

function problemsOf(raw: unknown) {
  try {
    validateWorkflow(raw);
  } catch (err) {
    return (err as GraphException).problems.map((p) => ({
      edge: p.edge,
      field: p.field,
      message: p.message,
    }));
  }
  return [];
}

describe(validateWorkflow.name, () => {
  it('accepts a valid engine workflow', () => {
    expect(validateWorkflow(base()).edges['llm-1'].type).toBe('llm');
  });

  it.each([
    [
      'an unknown edge type',
      (w: ReturnType<typeof base>) => ((w.edges['llm-1'] as { type: string }).type = 'teleport'),
      'llm-1',
      'type',
      'unknown edge type',
    ],
    [
      'an input naming a missing block',
      (w: ReturnType<typeof base>) =>
        ((w.edges['llm-1'] as { data: { inputs: object } }).data.inputs = { '1': 'a', '9': 'z' }),
      'llm-1',
      'data.inputs.9',
      'not a block of the workflow',
    ],
    [
      'an output naming a missing block',
      (w: ReturnType<typeof base>) =>
        ((w.edges['llm-1'] as { data: { outputs: object } }).data.outputs = { '8': 'x' }),
      'llm-1',
      'data.outputs.8',
      'not a block of the workflow',
    ],
    [
      'a placeholder naming a label that is no input',
      (w: ReturnType<typeof base>) =>
        ((w.edges['llm-1'] as { data: { messages: unknown[] } }).data.messages = [
          { role: 'user', content: '{{c}}' },
        ]),
      'llm-1',
      'data.messages.0.content',
      '{{c}} names no input block',
    ],
    [
      'a cycle',
      (w: ReturnType<typeof base>) =>
        (w.edges['back'] = {
          type: 'modify',
          data: { modify_type: 'copy', content: '{{b}}', inputs: { '2': 'b' }, outputs: { '1': 'a' } },
        }),
      'back',
      'data.outputs',
      'cycle: llm-1 → back → llm-1',
    ],
    [
      'a version other than 0.2',
      (w: ReturnType<typeof base>) => (w.version = '0.1'),
      undefined,
      'version',
      'not "0.1"',
    ],
    [
      'a reserved edge id',
      (w: ReturnType<typeof base>) => (w.edges['end'] = w.edges['llm-1']),
      'end',
      'id',
      'not begin or end',
    ],
  ])('refuses %s, naming the edge and field', (_name, patch, edgeId, field, message) => {
    const w = base();
    patch(w);
    expect(problemsOf(w)).toContainEqual({ edge: edgeId, field, message: expect.stringContaining(message) });
  });

  it('refuses a block written by two edges', () => {
    const w = base();
    w.edges['llm-2'] = {
      type: 'llm',
      data: { messages: [{ role: 'user', content: 'x' }], inputs: { '1': 'a' }, outputs: { '2': 'b' } },
    };
    expect(problemsOf(w)).toContainEqual({
      edge: 'llm-2',
      field: 'data.outputs.2',
      message: expect.stringContaining('already written by edge llm-1'),
    });
  });

  it.each([
    [
      'legacy `then`',
      { conditions: [{ block: '1', condition: 'is_empty', operation: '/' }], then: [{ from: '1', to: '3' }] },
      'data.cases.c1.then',
      'reads `thens`',
    ],
    [
      '"/" between conditions',
      {
        conditions: [
          { block: '1', condition: 'is_empty', operation: '/' },
          { block: '1', condition: 'is_list', operation: '/' },
        ],
        thens: [],
      },
      'data.cases.c1.conditions.0.operation',
      'None operation',
    ],
    [
      'a last operation other than "/"',
      { conditions: [{ block: '1', condition: 'is_empty', operation: 'and' }], thens: [] },
      'data.cases.c1.conditions.0.operation',
      'use `/` instead',
    ],
    [
      'an unknown condition',
      { conditions: [{ block: '1', condition: 'is_big', operation: '/' }], thens: [] },
      'data.cases.c1.conditions.0.condition',
      'Invalid',
    ],
    [
      'a then to a block that is no output',
      {
        conditions: [{ block: '1', condition: 'is_empty', operation: '/' }],
        thens: [{ from: '1', to: '2' }],
      },
      'data.cases.c1.thens.0.to',
      'not an output',
    ],
  ])('refuses an ifelse case with %s', (_name, c, field, message) => {
    const w = base();
    w.edges = {
      ie: { type: 'ifelse', data: { cases: { c1: c }, inputs: { '1': 'a' }, outputs: { '3': 'c' } } },
    };
    expect(problemsOf(w)).toContainEqual({ edge: 'ie', field, message: expect.stringContaining(message) });
  });

  it('refuses a vector search whose data source names no collection or index', () => {
    const w = base();
    w.edges = {
      s: {
        type: 'search',
        data: {
          search_type: 'vector',
          query_id: { '1': 'a' },
          data_source: [{ id: '1', index_item: { index_name: '' } }],
          inputs: { '1': 'a' },
          outputs: { '2': 'b' },
        },
      },
    };
    expect(problemsOf(w)).toContainEqual({
      edge: 's',
      field: 'data.data_source.0.index_item',
      message: expect.stringContaining('index_item must include either collection_configs'),
    });
  });
});

describe(editorToEngine.name, () => {
  const editor = {
    workflow: {
      blocks: [
        { id: 'q', type: 'text', data: { label: 'Query', content: 'price?', isInput: true } },
        {
          id: 'kb',
          type: 'structured',
          data: { label: 'KB', content: '', indexingList: [{ index_name: 'faq' }] },
        },
        { id: 'ext', type: 'text', data: { label: 'ext', content: 'ignored', storage_class: 'external' } },
        { id: 'out', type: 'text', data: { label: 'out', content: '', isOutput: true } },
        { id: 'g', type: 'group', data: { label: 'layout' } },
        {
          id: 'llm',
          type: 'llmnew',
          data: {
            content: [
              { role: 'system', content: 'S' },
              { role: 'user', content: '{{Query}}' },
            ],
            modelAndProvider: { id: 'm' },
            structured_output: false,
          },
        },
        {
          id: 'ret',
          type: 'retrieving',
          data: {
            top_k: 3,
            query_id: { id: 'q', label: 'Query' },
            dataSource: [{ id: 'kb', label: 'KB', index_item: { index_name: 'faq' } }],
            extra_configs: { threshold: 0.5 },
          },
        },
        {
          id: 'get',
          type: 'editStructured',
          data: {
            type: 'get',
            getConfigData: [
              { key: 'num', value: '0' },
              { key: 'key', value: 'FAQ' },
            ],
          },
        },
      ],
      edges: [
        { id: 'c1', source: 'q', target: 'llm', data: { connectionType: 'STC' } },
        { id: 'c2', source: 'llm', target: 'out', data: { connectionType: 'CTT' } },
        { id: 'c3', source: 'q', target: 'ret', data: { connectionType: 'STC' } },
        { id: 'c4', source: 'kb', target: 'ret', data: { connectionType: 'STC' } },
        { id: 'c5', source: 'ret', target: 'ext', data: { connectionType: 'CTT' } },
        { id: 'c6', source: 'ext', target: 'get', data: { connectionType: 'STC' } },
        { id: 'c7', source: 'get', target: 'kb', data: { connectionType: 'CTT' } },
      ],
      version: '0.1.0',
    },
  };

  it('is recognised as a PuppyEngine workflow', () => {
    expect(isPuppyWorkflow(editor)).toBe(true);
    expect(isPuppyWorkflow(editor.workflow)).toBe(true);
    expect(isPuppyWorkflow({ components: {}, graph: { nodes: [], edges: [] } })).toBe(false);
  });

  it('turns computation nodes into edges and data nodes into blocks, as PuppyFlow’s builders do', () => {
    const engine = editorToEngine(editor) as {
      blocks: Record<string, unknown>;
      edges: Record<string, { type: string; data: Record<string, unknown> }>;
    };
    expect(Object.keys(engine.blocks)).toEqual(['q', 'kb', 'ext', 'out']);
    expect(engine.blocks['q']).toEqual({
      label: 'Query',
      type: 'text',
      data: { content: 'price?' },
      looped: false,
      isInput: true,
    });
    expect(engine.blocks['kb']).toMatchObject({
      data: { content: null, indexingList: [{ index_name: 'faq' }] },
    });
    expect(engine.blocks['ext']).toMatchObject({ data: { content: null } });
    expect(engine.edges['llm']).toEqual({
      type: 'llm',
      data: {
        messages: [
          { role: 'system', content: 'S' },
          { role: 'user', content: '{{Query}}' },
        ],
        chat_histories: [
          { role: 'system', content: 'S' },
          { role: 'user', content: '{{Query}}' },
        ],
        model: 'm',
        base_url: '',
        max_tokens: 128000,
        temperature: 0.7,
        inputs: { q: 'Query' },
        structured_output: false,
        outputs: { out: 'out' },
      },
    });
    expect(engine.edges['ret'].data).toMatchObject({
      search_type: 'vector',
      top_k: 3,
      threshold: 0.5,
      query_id: { q: 'Query' },
      inputs: { q: 'Query', kb: 'KB' },
      data_source: [{ id: 'kb', label: 'KB', index_item: { index_name: 'faq' } }],
    });
    expect(engine.edges['get'].data).toMatchObject({
      content: '{{ext}}',
      modify_type: 'edit_structured',
      extra_configs: {
        operations: [{ type: 'get', params: { path: [0, 'FAQ'], default: 'Get Failed, value not exist' } }],
      },
    });
  });

  it('refuses a node type it does not convert, naming the node', () => {
    const w = { blocks: [{ id: 'x', type: 'teleport', data: {} }], edges: [] };
    expect(() => editorToEngine(w)).toThrow(
      'edge x, field type: the editor node type "teleport" is not converted',
    );
  });
});
