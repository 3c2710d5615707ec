import { collectionDocuments, documentText, vectorSearch } from './vector-search';

describe(vectorSearch.name, () => {
  const docs = ['星空', '帐篷', '篝火', '代码', '野风', '野外求生'];

  it('ranks by the share of a text’s characters found in the query, ties in collection order', () => {
    expect(vectorSearch('谁在野外加班？', docs, 5)).toEqual(['野风', '野外求生', '星空', '帐篷', '篝火']);
  });

  it.each([
    [0, []],
    [1, ['野风']],
    [10, ['野风', '野外求生', '星空', '帐篷', '篝火', '代码']],
  ])('returns the top %i', (k, expected) => {
    expect(vectorSearch('谁在野外加班？', docs, k)).toEqual(expected);
  });
});

describe(collectionDocuments.name, () => {
  const block = (indexingList: unknown[], type = 'structured') => ({
    label: 'kb',
    type,
    data: { content: ['c1'], indexingList },
  });

  it.each([
    [
      'a named collection is the block’s content',
      { id: 'kb', index_item: { index_name: 'x', collection_configs: { collection_name: 'col' } } },
      block([]),
      ['c1'],
    ],
    [
      'an index name finds its indexing item’s entries',
      { id: 'kb', index_item: { index_name: 'faq' } },
      block([
        { index_name: 'other', status: 'done', entries: ['o'] },
        { index_name: 'faq', status: 'notStarted', entries: ['e1'] },
      ]),
      ['e1'],
    ],
    [
      'without a match, the first done item',
      { id: 'kb', index_item: { index_name: 'missing' } },
      block([
        { index_name: 'a', status: 'notStarted', entries: ['n'] },
        { index_name: 'b', status: 'done', entries: ['d'] },
      ]),
      ['d'],
    ],
    [
      'nothing resolved is an empty collection (agentic-rag)',
      { id: 'kb', index_item: { index_name: 'faq' } },
      block([{ index_name: '', status: 'notStarted', entries: [] }]),
      [],
    ],
  ])('%s', (_name, source, b, expected) => {
    expect(collectionDocuments(source, b, b.data.content)).toEqual(expected);
  });

  it('reads an entry’s content as its text', () => {
    expect(documentText({ content: 'x', metadata: {} })).toBe('x');
    expect(documentText({ q: 'a' })).toBe('{"q": "a"}');
  });
});
