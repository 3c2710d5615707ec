import { TestStack, readSse } from '@switchyard/testing';

// PuppyEngine's pure edges end to end: chunk (every mode run without a model) and modify (the
// edit_structured operations, convert2structured's mixed-text parsing, edit_text), saved through
// the gateway and run by the orchestrator and planner. The expected values are what PuppyEngine's
// ChunkEdge/ModifyEdge code returns on the same inputs (python3 on the upstream files). Each
// PuppyFlow editor node type is also run twice — in editor form and in the engine JSON PuppyFlow
// submits for it — and both must answer alike.

type Json = Record<string, unknown>;

let stack: TestStack;

beforeAll(async () => {
  stack = await TestStack.start({ script: 'apps/planner/test/fixtures/graph.script.json' });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

const saveAgent = (name: string, dsl: unknown) =>
  stack.api('POST', '/v1/agents', { name, kind: 'graph', dsl });

async function runWorkflow(
  name: string,
  dsl: unknown,
  prompt = 'go',
): Promise<{ status: string; error: unknown; output: Json }> {
  const saved = await saveAgent(name, dsl);
  expect(saved.status).toBe(201);
  const res = await stack.api('POST', '/v1/runs', { agent_id: saved.body.id, input: { prompt } });
  expect(res.status).toBe(202);
  const runId = res.body.run_id as string;
  // The stream ends when the run does.
  await readSse(`${stack.gatewayUrl}/v1/runs/${runId}/events`, {
    headers: { Authorization: `Bearer ${stack.key}` },
    timeoutMs: 60_000,
  });
  const run = (await stack.api('GET', `/v1/runs/${runId}`)).body as {
    status: string;
    error: unknown;
    output: Json;
  };
  return run;
}

const text = (label: string, content: unknown, looped = false) => ({
  label,
  type: 'text',
  looped,
  data: { content },
});
const structured = (label: string, content: unknown = null) => ({
  label,
  type: 'structured',
  data: { content },
});

describe('PuppyEngine chunk edges', () => {
  // One chunk edge per mode, each reading its own block and writing its own answer block.
  const modes: Record<string, { data: Json; doc: string; expected: string[] }> = {
    auto: {
      data: { chunking_mode: 'auto', extra_configs: { chunk_size: 30, chunk_overlap: 5 } },
      doc: 'First paragraph here.\n\nSecond one is a bit longer, with commas, and more words.',
      expected: [
        'First paragraph here.\n\n',
        'Second one is a bit longer, ',
        'with commas, ',
        'and more words.',
      ],
    },
    simple: {
      data: { chunking_mode: 'simple' },
      doc: 'One. Two! Three?\nFour',
      expected: ['One.', ' Two!', ' Three?', 'Four'],
    },
    length: {
      data: {
        chunking_mode: 'length',
        sub_chunking_mode: 'size',
        extra_configs: { chunk_size: 10, overlap: 3, handle_half_word: true },
      },
      doc: 'The quick brown fox jumps over the lazy dog',
      expected: ['The quick', 'quick brown fox', 'fox jumps', 'jumps over', 'over the', 'the lazy dog'],
    },
    character: {
      data: {
        chunking_mode: 'character',
        sub_chunking_mode: 'character',
        extra_configs: { delimiters: [';', ','] },
      },
      doc: 'a;b, c',
      expected: ['a', 'b', 'c'],
    },
    recursive: {
      data: {
        chunking_mode: 'special',
        sub_chunking_mode: 'recursive',
        extra_configs: { extra_configs: 20 },
      },
      doc: 'Sentence one. Sentence two is here! Three?',
      expected: ['Sentence one.', 'Sentence two is here!', 'Three?'],
    },
    semantic: {
      data: {
        chunking_mode: 'special',
        sub_chunking_mode: 'semantic',
        extra_configs: {
          docs: ['cats ', 'kittens ', 'stocks'],
          embeddings: [
            [1, 0],
            [0.95, 0.2],
            [0, 1],
          ],
          threshold: 0.8,
        },
      },
      doc: 'unused',
      expected: ['cats kittens ', 'stocks'],
    },
    // advanced: worked out from upstream's code (bs4 and markdown2 are not installed here).
    html: {
      data: {
        chunking_mode: 'advanced',
        sub_chunking_mode: 'html',
        extra_configs: {
          tags: [
            ['h1', 'title'],
            ['p', 'para'],
          ],
        },
      },
      doc: '<h1>Title</h1><p>One <b>bold</b> line</p><div><p>Two</p></div>',
      expected: ['Title', 'Oneboldline', 'Two'],
    },
    markdown: {
      data: { chunking_mode: 'advanced', sub_chunking_mode: 'markdown' },
      doc: '# Head\n\nBody *text*',
      expected: ['Head', 'Bodytext', 'text'],
    },
    markdown_structured: {
      data: { chunking_mode: 'advanced', sub_chunking_mode: 'markdown_structured' },
      doc: '# Head\n\nBody *text*\n\n- a\n- b',
      expected: ['header: Head', 'paragraph: Body', 'italic: text', 'list_item: a', 'list_item: b'],
    },
  };

  it('runs every chunking mode that needs no model, as PuppyEngine chunks', async () => {
    const blocks: Json = {};
    const edges: Json = {};
    for (const [mode, c] of Object.entries(modes)) {
      blocks[`doc_${mode}`] = text(`doc_${mode}`, c.doc);
      blocks[`out_${mode}`] = structured(`out_${mode}`);
      edges[`chunk_${mode}`] = {
        type: 'chunk',
        data: {
          ...c.data,
          inputs: { [`doc_${mode}`]: `doc_${mode}` },
          outputs: { [`out_${mode}`]: `out_${mode}` },
        },
      };
    }
    const run = await runWorkflow('chunks', { blocks, edges });
    expect(run.error).toBeNull();
    expect(run.status).toBe('succeeded');
    expect(run.output['blocks']).toEqual(
      Object.fromEntries(Object.entries(modes).map(([mode, c]) => [`out_${mode}`, c.expected])),
    );
  });

  it('chunks a looped block item by item, one chunk list per item', async () => {
    const run = await runWorkflow('looped chunk', {
      blocks: { doc: { ...structured('doc', ['a,b', 'c']), looped: true }, out: structured('out') },
      edges: {
        c: {
          type: 'chunk',
          data: {
            chunking_mode: 'character',
            sub_chunking_mode: 'character',
            extra_configs: { delimiters: [','] },
            inputs: { doc: 'doc' },
            outputs: { out: 'out' },
          },
        },
      },
    });
    expect(run.output['blocks']).toEqual({ out: [['a', 'b'], ['c']] });
  });

  it('refuses on save a mode that would chunk nothing, naming edge and field', async () => {
    const res = await saveAgent('rechunk', {
      blocks: { doc: text('doc', 'x'), out: structured('out') },
      edges: {
        c: {
          type: 'chunk',
          data: { chunking_mode: 'rechunk', inputs: { doc: 'doc' }, outputs: { out: 'out' } },
        },
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toContainEqual(
      expect.objectContaining({
        field: 'dsl.edges.c.data.chunking_mode',
        edge: 'c',
        code: 'unsupported_component',
        message: expect.stringContaining('the chunking mode "rechunk" is not run by this runtime') as unknown,
      }),
    );
  });
});

describe('PuppyEngine modify edges', () => {
  it('runs edit_structured operations, convert2structured parsing and edit_text as PuppyEngine does', async () => {
    const modify = (type: string, content: string, extra: Json, inputs: Json, out: string) => ({
      type: 'modify',
      data: { modify_type: type, content, extra_configs: extra, inputs, outputs: { [out]: out } },
    });
    const run = await runWorkflow('modify', {
      blocks: {
        doc: structured('doc', { items: [3, 1, 2], meta: { k: 'v' } }),
        name: text('name', 'Zoe "Z"'),
        tree: structured('tree', { a: { b: 1 }, c: [1, 2] }),
        sets: structured('sets', { x: [1, 2, 3], y: [2, 4] }),
        tmpl: structured('tmpl', { greet: 'hi {{n}}' }),
        mixed: text('mixed', "Intro {'k': 1} then [1, 2] end"),
        words: text('words', "This is ['a', 'b'] a {'key': 'value'} test."),
        chain: structured('chain'),
        keys: structured('keys'),
        diff: structured('diff'),
        greeting: structured('greeting'),
        parsed: structured('parsed'),
        listed: structured('listed'),
        edited: text('edited', ''),
      },
      edges: {
        ops: modify(
          'edit_structured',
          '{{doc}}',
          {
            operations: [
              { type: 'sort', params: { path: ['items'], reverse: true } },
              { type: 'append', params: { path: ['items'], value: '{{name}}' } },
              { type: 'delete', params: { path: ['meta', 'k'] } },
              { type: 'set_value', params: { path: ['meta', 'who'], value: 'said {{name}}' } },
              { type: 'insert', params: { path: ['items'], index: 0, value: 'first' } },
            ],
          },
          { doc: 'doc', name: 'name' },
          'chain',
        ),
        keys: modify(
          'edit_structured',
          '{{tree}}',
          { operations: [{ type: 'get_keys', params: { max_depth: 100 } }] },
          { tree: 'tree' },
          'keys',
        ),
        diff: modify(
          'edit_structured',
          '{{sets}}',
          {
            operations: [
              { type: 'set_operation', params: { path1: ['x'], path2: ['y'], operation: 'difference' } },
            ],
          },
          { sets: 'sets' },
          'diff',
        ),
        vr: modify(
          'edit_structured',
          '{{tmpl}}',
          { operations: [{ type: 'variable_replace', params: { plugins: { n: 'Ann' } } }] },
          { tmpl: 'tmpl' },
          'greeting',
        ),
        json: modify(
          'convert2structured',
          '{{mixed}}',
          { conversion_mode: 'parse_as_json' },
          { mixed: 'mixed' },
          'parsed',
        ),
        list: modify(
          'convert2structured',
          '{{words}}',
          { conversion_mode: 'parse_as_list' },
          { words: 'words' },
          'listed',
        ),
        text: modify(
          'edit_text',
          'Hello {{name}}!',
          { slice: [-5, -1], sort_type: 'ascending' },
          { name: 'name' },
          'edited',
        ),
      },
    });
    expect(run.error).toBeNull();
    expect(run.output['blocks']).toEqual({
      chain: { items: ['first', 3, 2, 1, 'Zoe "Z"'], meta: { who: 'said Zoe \\"Z\\"' } },
      keys: [
        ['a', 'b'],
        ['c', 0],
        ['c', 1],
      ],
      diff: [1, 3],
      greeting: { greet: 'hi Ann' },
      parsed: { text_1: 'Intro', dict_1: { k: 1 }, text_2: 'then', list_1: [1, 2], text_3: 'end' },
      listed: ['This is', ['a', 'b'], 'a', { key: 'value' }, 'test.'],
      edited: ' !""Z',
    });
  });
});

describe('PuppyFlow editor nodes answer as the engine JSON PuppyFlow submits for them', () => {
  interface Twin {
    input: { type: 'text' | 'structured'; content: unknown };
    node: Json;
    engine: Json;
    outputs?: string[];
    /** What PuppyEngine writes to `out` (python3 on the upstream code). */
    expected: unknown;
  }
  const twins: Record<string, Twin> = {
    chunkingAuto: {
      expected: ['short text for auto'],
      input: { type: 'text', content: 'short text for auto' },
      node: {},
      engine: { type: 'chunk', data: { chunking_mode: 'auto', extra_configs: {} } },
    },
    chunkingByCharacter: {
      expected: ['a', 'b', 'c', 'd'],
      input: { type: 'text', content: 'a,b;c\nd' },
      node: { delimiters: [',', ';', '\n'] },
      engine: {
        type: 'chunk',
        data: {
          chunking_mode: 'character',
          sub_chunking_mode: 'character',
          extra_configs: { delimiters: [',', ';', '\n'] },
        },
      },
    },
    chunkingByLength: {
      expected: ['The quick', 'quick brown fox', 'fox jumps', 'jumps over', 'over the', 'the lazy dog'],
      input: { type: 'text', content: 'The quick brown fox jumps over the lazy dog' },
      node: {
        sub_chunking_mode: 'size',
        extra_configs: { chunk_size: 10, overlap: 3, handle_half_word: true },
      },
      engine: {
        type: 'chunk',
        data: {
          chunking_mode: 'length',
          sub_chunking_mode: 'size',
          extra_configs: { chunk_size: 10, overlap: 3, handle_half_word: true },
        },
      },
    },
    convert2structured: {
      expected: ['x', 'y', 'z'],
      input: { type: 'text', content: 'x; y;z' },
      node: { execMode: 'split by character', extra_configs: { list_separator: '[";"]' } },
      engine: {
        type: 'modify',
        data: {
          content: '{{In}}',
          modify_type: 'convert2structured',
          extra_configs: {
            conversion_mode: 'split_by_character',
            action_type: 'default',
            list_separator: [';'],
          },
        },
      },
    },
    editText: {
      expected: 'Zoe!',
      input: { type: 'text', content: 'Zoe' },
      node: { content: 'Hi {{In}}!', extra_configs: { retMode: 'exclude first n', configNum: 3 } },
      engine: {
        type: 'modify',
        data: {
          modify_type: 'edit_text',
          content: 'Hi {{In}}!',
          extra_configs: { slice: [3, -1], sort_type: '/' },
        },
      },
    },
    editStructured: {
      expected: { a: 'new', b: 2 },
      input: { type: 'structured', content: '{"a": 1, "b": 2}' },
      node: { type: 'replace', getConfigData: [{ key: 'key', value: 'a' }], paramv: 'new' },
      engine: {
        type: 'modify',
        data: {
          content: '{{In}}',
          modify_type: 'edit_structured',
          extra_configs: { operations: [{ type: 'set_value', params: { path: ['a'], value: 'new' } }] },
        },
      },
    },
    ifelse: {
      expected: 'hello world',
      input: { type: 'text', content: 'hello world' },
      node: {
        cases: [
          {
            conditions: [{ id: 'in', condition: 'contains', cond_v: 'world', operation: 'AND' }],
            actions: [{ from_id: 'in', outputs: ['out'] }],
          },
          {
            conditions: [{ id: 'in', condition: 'is empty', operation: 'AND' }],
            actions: [{ from_id: 'in', outputs: ['out2'] }],
          },
        ],
      },
      engine: {
        type: 'ifelse',
        data: {
          cases: {
            case1: {
              conditions: [
                { block: 'in', condition: 'contain', parameters: { value: 'world' }, operation: '/' },
              ],
              thens: [{ from: 'in', to: 'out' }],
            },
            case2: {
              conditions: [{ block: 'in', condition: 'is_empty', parameters: { value: '' }, operation: '/' }],
              thens: [{ from: 'in', to: 'out2' }],
            },
          },
        },
      },
      outputs: ['out', 'out2'],
    },
  };

  it.each(Object.keys(twins))('%s', async (type) => {
    const t = twins[type];
    const outputs = t.outputs ?? ['out'];
    const editor = {
      blocks: [
        { id: 'in', type: t.input.type, data: { label: 'In', content: t.input.content } },
        { id: 'node', type, data: t.node },
        ...outputs.map((id) => ({ id, type: 'structured', data: { label: id, content: '' } })),
      ],
      edges: [{ source: 'in', target: 'node' }, ...outputs.map((id) => ({ source: 'node', target: id }))],
    };
    const inContent =
      t.input.type === 'structured' ? (JSON.parse(t.input.content as string) as unknown) : t.input.content;
    const engine = {
      blocks: {
        in: { label: 'In', type: t.input.type, data: { content: inContent } },
        ...Object.fromEntries(outputs.map((id) => [id, structured(id)])),
      },
      edges: {
        node: {
          ...t.engine,
          data: {
            ...(t.engine['data'] as Json),
            inputs: { in: 'In' },
            outputs: Object.fromEntries(outputs.map((id) => [id, id])),
          },
        },
      },
    };
    // A text input is also the one block the prompt fills: the prompt is its content.
    const prompt = typeof t.input.content === 'string' ? t.input.content : 'go';
    const fromEditor = await runWorkflow(`${type} editor`, editor, prompt);
    const fromEngine = await runWorkflow(`${type} engine`, engine, prompt);
    expect(fromEditor.error).toBeNull();
    expect(fromEditor.status).toBe('succeeded');
    expect(fromEditor.output['blocks']).toEqual(fromEngine.output['blocks']);
    expect(fromEditor.output['skipped_blocks']).toEqual(fromEngine.output['skipped_blocks']);
    expect(fromEditor.output['blocks']).toEqual({ out: t.expected });
  });

  it("refuses on save chunkingByLength's tokenizer sub-mode, which PuppyEngine cannot run", async () => {
    const res = await saveAgent('tokenizer', {
      blocks: [
        { id: 'in', type: 'text', data: { label: 'In', content: 'x' } },
        { id: 'node', type: 'chunkingByLength', data: { sub_chunking_mode: 'tokenizer' } },
        { id: 'out', type: 'structured', data: { label: 'out', content: '' } },
      ],
      edges: [
        { source: 'in', target: 'node' },
        { source: 'node', target: 'out' },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toContainEqual(
      expect.objectContaining({ field: 'dsl.edges.node.data.sub_chunking_mode', edge: 'node' }),
    );
  });
});
