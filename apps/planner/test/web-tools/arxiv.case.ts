import type { WebToolCase } from './web-tool-case';

const ATOM = { 'Content-Type': 'application/atom+xml; charset=utf-8' };

export const ARXIV_CASE: WebToolCase = {
  component: 'ArXiv',
  envName: 'ARXIV',
  routes: (s, prefix) =>
    s.on('GET', `/${prefix}/api/query`, (req) => ({
      headers: ATOM,
      text: `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <link href="http://arxiv.org/api/query" rel="self" type="application/atom+xml"/>
  <title type="html">ArXiv Query: search_query=${req.query['search_query']}&amp;id_list=&amp;start=0&amp;max_results=${req.query['max_results']}</title>
  <id>http://arxiv.org/api/e2e</id>
  <updated>2024-05-03T00:00:00-04:00</updated>
  <opensearch:totalResults xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">1</opensearch:totalResults>
  <opensearch:startIndex xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">0</opensearch:startIndex>
  <opensearch:itemsPerPage xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">1</opensearch:itemsPerPage>
  <entry>
    <id>http://arxiv.org/abs/2405.01234v1</id>
    <updated>2024-05-02T17:59:59Z</updated>
    <published>2024-05-02T17:59:59Z</published>
    <title>A Survey of
  ${req.query['search_query']}</title>
    <summary>  We review ${req.query['search_query']} (sorted by ${req.query['sortBy']}).
</summary>
    <author><name>Ada Lovelace</name></author>
    <link href="http://arxiv.org/abs/2405.01234v1" rel="alternate" type="text/html"/>
    <link title="pdf" href="http://arxiv.org/pdf/2405.01234v1" rel="related" type="application/pdf"/>
    <arxiv:primary_category xmlns:arxiv="http://arxiv.org/schemas/atom" term="q-bio.BM" scheme="http://arxiv.org/schemas/atom"/>
    <category term="q-bio.BM" scheme="http://arxiv.org/schemas/atom"/>
  </entry>
</feed>
`,
    })),
  params: { top_n: 3, sort_by: 'relevance' },
  prompt: 'Photosynthesis',
  expected: [
    'A Survey of Photosynthesis',
    'http://arxiv.org/pdf/2405.01234v1',
    'We review Photosynthesis (sorted by relevance).',
  ],
  agent: { args: { query: 'Mitochondria' }, reads: 'We review Mitochondria (sorted by relevance).' },
};
