import { collectionSpecs, withCollectionConfigs, withIndexNames } from './collections';

type Json = Record<string, unknown>;

const faq = [
  { question: 'What is your price?', answer: '$25' },
  { question: 'Where are you?', answer: 'Singapore' },
];

/** An editor-form template: a vector KB block, a query block and a retrieving node. */
function editor(item: Json, content: unknown = faq): Json {
  return {
    workflow: {
      blocks: [
        { id: 'kb', type: 'structured', data: { label: 'KB', content, indexingList: [item] } },
        { id: 'q', type: 'text', data: { label: 'Q', content: '' } },
        { id: 'out', type: 'structured', data: { label: 'Out', content: '' } },
        {
          id: 'r',
          type: 'retrieving',
          data: {
            top_k: 3,
            query_id: { id: 'q', label: 'Q' },
            dataSource: [{ id: 'kb', label: 'KB', index_item: { index_name: '' } }],
          },
        },
      ],
      edges: [
        { source: 'q', target: 'r' },
        { source: 'kb', target: 'r' },
        { source: 'r', target: 'out' },
      ],
    },
  };
}

const keyPath = (key: string) => [{ id: 'x', type: 'key', value: key }];

describe('PuppyEngine vector-collection blocks', () => {
  it("cuts list content by the item's key path (the text) and value path (what a hit returns)", () => {
    const specs = collectionSpecs(
      editor({
        type: 'vector',
        index_name: '',
        status: 'notStarted',
        key_path: keyPath('question'),
        value_path: [],
      }),
      'hash-embedding-v1',
    );
    expect(specs).toEqual([
      {
        blockId: 'kb',
        item: 0,
        index_name: 'kb',
        model: 'hash-embedding-v1',
        entries: [
          { text: 'What is your price?', metadata: { id: 0, retrieval_content: faq[0] } },
          { text: 'Where are you?', metadata: { id: 1, retrieval_content: faq[1] } },
        ],
        name: expect.stringMatching(/^puppy kb [0-9a-f]{16}$/),
      },
    ]);
    const answers = collectionSpecs(
      editor({
        key_path: keyPath('question'),
        value_path: keyPath('answer'),
        index_name: 'faq',
        collection_configs: { model: 'm' },
      }),
      'd',
    );
    expect(answers[0]).toMatchObject({ index_name: 'faq', model: 'm' });
    expect(answers[0].entries.map((e) => e.metadata.retrieval_content)).toEqual(['$25', 'Singapore']);
  });

  it('takes the entries an item holds, content as JSON text, and skips entries with nothing to embed', () => {
    const given = collectionSpecs(
      editor({
        entries: [
          { content: 'a', metadata: { id: 7, retrieval_content: { x: 1 } } },
          { content: { b: 2 } },
          { content: '' },
        ],
      }),
      'd',
    );
    expect(given[0].entries).toEqual([
      { text: 'a', metadata: { id: 7, retrieval_content: { x: 1 } } },
      { text: '{"b":2}', metadata: { id: 1, retrieval_content: { b: 2 } } },
    ]);
    const fromText = collectionSpecs(editor({ key_path: keyPath('question') }, JSON.stringify(faq)), 'd');
    expect(fromText[0].entries.map((e) => e.text)).toEqual(['What is your price?', 'Where are you?']);
    // Nothing to index: no block content, no entries; a non-vector index set.
    expect(collectionSpecs(editor({ key_path: keyPath('question') }, ''), 'd')).toEqual([]);
    expect(collectionSpecs(editor({ type: 'graph', entries: [{ content: 'a' }] }), 'd')).toEqual([]);
  });

  it('names a collection by its block, entries and model', () => {
    const name = (item: Json, content?: unknown) => collectionSpecs(editor(item, content), 'd')[0].name;
    const item = { key_path: keyPath('question') };
    expect(name(item)).toBe(name({ ...item }));
    expect(name(item)).not.toBe(name(item, [...faq, { question: 'new?' }]));
    expect(name(item)).not.toBe(name({ ...item, collection_configs: { model: 'other' } }));
  });

  it('reads a legacy engine block: configs beside its data, its list content the entries', () => {
    const engine = {
      blocks: {
        kb: {
          label: 'kb',
          type: 'structured',
          data: { content: ['星空', '野风'] },
          collection_configs: [{ collection_name: 'public5c46', model: 'text-embedding-ada-002' }],
        },
      },
      edges: {},
    };
    const [spec] = collectionSpecs(engine, 'd');
    expect(spec).toMatchObject({
      blockId: 'kb',
      item: -1,
      index_name: 'public5c46',
      model: 'text-embedding-ada-002',
    });
    expect(spec.entries).toEqual([
      { text: '星空', metadata: { id: 0, retrieval_content: '星空' } },
      { text: '野风', metadata: { id: 1, retrieval_content: '野风' } },
    ]);
    const configs = {
      collection_name: 'kb_1_entries',
      set_name: 'entries',
      model: 'm',
      vdb_type: 'v',
      user_id: 't',
    };
    const filled = withCollectionConfigs(engine, [{ spec, configs }]);
    expect(filled.blocks.kb.data).toEqual({
      content: ['星空', '野风'],
      indexingList: [
        { type: 'vector', index_name: 'public5c46', status: 'done', collection_configs: configs },
      ],
    });
    expect(engine.blocks.kb.data).toEqual({ content: ['星空', '野风'] }); // a copy was changed
  });

  it('names the index set in the block and in data sources that give none; fills only the block with configs', () => {
    const raw = editor({
      type: 'vector',
      index_name: '',
      key_path: keyPath('question'),
      collection_configs: { model: '' },
    });
    const specs = collectionSpecs(raw, 'd');
    const named = withIndexNames(raw, specs) as { workflow: { blocks: { id: string; data: Json }[] } };
    const node = (w: typeof named, id: string) => w.workflow.blocks.find((b) => b.id === id)!.data;
    expect((node(named, 'kb')['indexingList'] as Json[])[0]['index_name']).toBe('kb');
    expect(node(named, 'r')['dataSource']).toEqual([
      { id: 'kb', label: 'KB', index_item: { index_name: 'kb' } },
    ]);
    // A data source that names an index keeps it.
    const own = editor({ key_path: keyPath('question') });
    const r = (own['workflow'] as { blocks: { id: string; data: Json }[] }).blocks[3];
    (r.data['dataSource'] as { index_item: Json }[])[0].index_item = { index_name: 'faq' };
    expect(node(withIndexNames(own, collectionSpecs(own, 'd')) as typeof named, 'r')['dataSource']).toEqual([
      { id: 'kb', label: 'KB', index_item: { index_name: 'faq' } },
    ]);

    const configs = {
      collection_name: 'kb_1_entries',
      set_name: 'entries',
      model: 'd',
      vdb_type: 'v',
      user_id: 't',
    };
    const filled = withCollectionConfigs(
      named,
      specs.map((spec) => ({ spec, configs })),
    );
    expect((node(filled, 'kb')['indexingList'] as Json[])[0]).toEqual({
      type: 'vector',
      index_name: 'kb',
      key_path: keyPath('question'),
      status: 'done',
      collection_configs: configs,
    });
    expect(node(filled, 'r')['dataSource']).toEqual([
      { id: 'kb', label: 'KB', index_item: { index_name: 'kb' } },
    ]);
  });
});
