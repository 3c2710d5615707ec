import { ProviderStandIn } from '@switchyard/testing';
import { providerFetch } from '../provider-http';
import { providerEnvSchema } from '../provider-tools.config';
import { ProviderErrorCode, ProviderException } from '../provider.exception';
import { ARXIV } from './arxiv';
import type { WebToolCall } from './web-tool';

// ArXiv against a local server answering the arXiv API's Atom feed as export.arxiv.org sends it.

const ATOM = { 'Content-Type': 'application/atom+xml; charset=utf-8' };

const entry = (id: string, title: string, summary: string) => `
  <entry>
    <id>http://arxiv.org/abs/${id}</id>
    <updated>2024-05-02T17:59:59Z</updated>
    <published>2024-05-01T17:59:59Z</published>
    <title>${title}</title>
    <summary>  ${summary}
</summary>
    <author>
      <name>Ada Lovelace</name>
    </author>
    <arxiv:comment xmlns:arxiv="http://arxiv.org/schemas/atom">12 pages</arxiv:comment>
    <link href="http://arxiv.org/abs/${id}" rel="alternate" type="text/html"/>
    <link title="pdf" href="http://arxiv.org/pdf/${id}" rel="related" type="application/pdf"/>
    <arxiv:primary_category xmlns:arxiv="http://arxiv.org/schemas/atom" term="cs.CL" scheme="http://arxiv.org/schemas/atom"/>
    <category term="cs.CL" scheme="http://arxiv.org/schemas/atom"/>
  </entry>`;

const feed = (query: string, entries: string, total: number) => `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <link href="http://arxiv.org/api/query?search_query%3D${encodeURIComponent(query)}" rel="self" type="application/atom+xml"/>
  <title type="html">ArXiv Query: search_query=${query}&amp;id_list=&amp;start=0&amp;max_results=2</title>
  <id>http://arxiv.org/api/q2kDcMHpsXtsBr5CD35b1l2T3ao</id>
  <updated>2024-05-03T00:00:00-04:00</updated>
  <opensearch:totalResults xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">${total}</opensearch:totalResults>
  <opensearch:startIndex xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">0</opensearch:startIndex>
  <opensearch:itemsPerPage xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">2</opensearch:itemsPerPage>${entries}
</feed>
`;

let standIn: ProviderStandIn;
const call = (params: Record<string, unknown> = {}): WebToolCall => ({
  fetch: providerFetch(providerEnvSchema.parse({ SWITCHYARD_PROVIDER_ALLOW_HOSTS: '127.0.0.1' })),
  baseUrl: standIn.url,
  params: { ...ARXIV.defaults, ...params },
});

beforeAll(async () => {
  standIn = await new ProviderStandIn()
    .on('GET', '/api/query', (req) => {
      const q = req.query['search_query'] ?? '';
      if (q === 'nothing') {
        return { headers: ATOM, text: feed(q, '', 0) };
      }
      if (q === 'bad:' || q === 'odd:') {
        return {
          status: q === 'bad:' ? 400 : 200,
          headers: ATOM,
          text: feed(
            q,
            `<entry><id>http://arxiv.org/api/errors#incorrect_id_format</id><title>Error</title><summary>incorrect query</summary></entry>`,
            1,
          ),
        };
      }
      return {
        headers: ATOM,
        text: feed(
          q,
          entry(
            '2405.00001v1',
            'Attention Is Still\n  All You Need',
            'We revisit transformers &amp; attention.',
          ) + entry('2405.00002v2', 'Sparse Mixtures', 'Experts that route tokens.'),
          2,
        ),
      };
    })
    .start();
});

afterAll(async () => {
  await standIn.stop();
});

describe('ArXiv', () => {
  it('searches with the params (top_n, sort_by) and renders titles, PDF links and abstracts', async () => {
    const r = await ARXIV.call(call({ top_n: 2, sort_by: 'relevance' }), { query: 'transformers' });
    const req = standIn.requests.at(-1)!;
    expect(req.path).toBe('/api/query');
    expect(req.query).toEqual({
      search_query: 'transformers',
      id_list: '',
      sortBy: 'relevance',
      sortOrder: 'descending',
      start: '0',
      max_results: '2',
    });
    const text = r.outputs['formalized_content'] as string;
    expect(text).toContain('Title: Attention Is Still All You Need');
    expect(text).toContain('URL: http://arxiv.org/pdf/2405.00001v1');
    expect(text).toContain('We revisit transformers & attention.');
    expect(text.indexOf('Attention Is Still')).toBeLessThan(text.indexOf('Sparse Mixtures'));
    expect(text).toContain('URL: http://arxiv.org/pdf/2405.00002v2');
    expect(r.answer).toBe(text);
    expect(r.outputs).toEqual({ formalized_content: text });
  });

  it('answers an empty query with nothing, without a call; no entries is empty content', async () => {
    const before = standIn.requests.length;
    expect((await ARXIV.call(call(), { query: '' })).outputs).toEqual({ formalized_content: '' });
    expect(standIn.requests.length).toBe(before);
    expect((await ARXIV.call(call(), { query: 'nothing' })).outputs['formalized_content']).toBe('');
    expect(standIn.requests.at(-1)!.query['sortBy']).toBe('submittedDate');
    expect(standIn.requests.at(-1)!.query['max_results']).toBe('12');
  });

  it("fails on arXiv's error answer, and refuses bad params naming them", async () => {
    await expect(ARXIV.call(call(), { query: 'bad:' })).rejects.toMatchObject({
      code: ProviderErrorCode.BadResponse,
      message: expect.stringContaining('ArXiv answered 400'),
    });
    await expect(ARXIV.call(call(), { query: 'odd:' })).rejects.toThrow('ArXiv: incorrect query');
    await expect(ARXIV.call(call({ sort_by: 'date' }), { query: 'x' })).rejects.toThrow(ProviderException);
    await expect(ARXIV.call(call({ sort_by: 'date' }), { query: 'x' })).rejects.toThrow('sort_by');
    await expect(ARXIV.call(call({ top_n: 0 }), { query: 'x' })).rejects.toThrow('top_n');
  });
});
