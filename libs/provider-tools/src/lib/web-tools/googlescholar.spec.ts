import { ProviderStandIn } from '@switchyard/testing';
import { providerFetch } from '../provider-http';
import { providerEnvSchema } from '../provider-tools.config';
import { ProviderErrorCode, ProviderException } from '../provider.exception';
import { GOOGLE_SCHOLAR } from './googlescholar';
import type { WebToolCall } from './web-tool';

// GoogleScholar against a local server answering SerpApi's `/search.json?engine=google_scholar` in
// its documented shape.

const KEY = 'serpapi-test-key';
let standIn: ProviderStandIn;
const call = (params: Record<string, unknown> = {}, apiKey = KEY): WebToolCall => ({
  fetch: providerFetch(providerEnvSchema.parse({ SWITCHYARD_PROVIDER_ALLOW_HOSTS: '127.0.0.1' })),
  baseUrl: standIn.url,
  params: { ...GOOGLE_SCHOLAR.defaults, ...params },
  apiKey,
});

const metadata = (q: string) => ({
  search_metadata: {
    id: '6650e4b4f0b1c2a3d4e5f608',
    status: 'Success',
    json_endpoint: 'https://serpapi.com/searches/def/6650e4b4f0b1c2a3d4e5f608.json',
    created_at: '2024-05-24 19:00:04 UTC',
    processed_at: '2024-05-24 19:00:04 UTC',
    google_scholar_url: `https://scholar.google.com/scholar?q=${encodeURIComponent(q)}&hl=en`,
    total_time_taken: 0.94,
  },
  search_parameters: { engine: 'google_scholar', q, hl: 'en' },
});

const paper = {
  position: 0,
  title: 'Attention is all you need',
  result_id: '5Gohgn6QFikJ',
  link: 'https://proceedings.neurips.cc/paper/2017/hash/3f5ee243547dee91fbd053c1c4a845aa-Abstract.html',
  snippet:
    'The dominant sequence transduction models are based on complex recurrent or convolutional neural networks …',
  publication_info: {
    summary: 'A Vaswani, N Shazeer, N Parmar… - Advances in neural …, 2017 - proceedings.neurips.cc',
    authors: [
      {
        name: 'A Vaswani',
        link: 'https://scholar.google.com/citations?user=oR9sCGYAAAAJ&hl=en&oi=sra',
        serpapi_scholar_link:
          'https://serpapi.com/search.json?author_id=oR9sCGYAAAAJ&engine=google_scholar_author&hl=en',
        author_id: 'oR9sCGYAAAAJ',
      },
    ],
  },
  resources: [
    { title: 'neurips.cc', file_format: 'PDF', link: 'https://proceedings.neurips.cc/paper/2017/file/x.pdf' },
  ],
  inline_links: {
    serpapi_cite_link: 'https://serpapi.com/search.json?engine=google_scholar_cite&q=5Gohgn6QFikJ',
    cited_by: {
      total: 120000,
      link: 'https://scholar.google.com/scholar?cites=2960712678066186980',
      cites_id: '2960712678066186980',
    },
  },
};

const citation = {
  position: 1,
  title: 'Transformers: a survey',
  result_id: 'q1w2e3r4t5y6',
  type: 'Citation',
  publication_info: { summary: 'J Doe, R Roe - 2021' },
};

beforeAll(async () => {
  standIn = await new ProviderStandIn()
    .on('GET', '/search.json', (req) => {
      if (req.query['api_key'] !== KEY) {
        return {
          status: 401,
          json: { error: 'Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key' },
        };
      }
      const q = req.query['q'];
      if (q === 'zzqx nothing') {
        return {
          json: {
            ...metadata(q),
            search_information: { organic_results_state: 'Fully empty', query_displayed: q },
            error: "Google hasn't returned any results for this query.",
          },
        };
      }
      return {
        json: {
          ...metadata(q),
          search_information: { organic_results_state: 'Results for exact spelling', total_results: 3240000 },
          organic_results: [paper, citation],
        },
      };
    })
    .start();
});

afterAll(async () => {
  await standIn.stop();
});

describe('GoogleScholar', () => {
  it("maps RAGFlow's params onto SerpApi's Google Scholar search", async () => {
    await GOOGLE_SCHOLAR.call(
      call({ top_n: 2, sort_by: 'date', patents: false, year_low: 2015, year_high: '2020' }),
      { query: 'transformer' },
    );
    expect(standIn.requests.at(-1)!.query).toEqual({
      engine: 'google_scholar',
      q: 'transformer',
      num: '2',
      as_sdt: '0',
      scisbd: '1',
      as_ylo: '2015',
      as_yhi: '2020',
      api_key: KEY,
    });
    await GOOGLE_SCHOLAR.call(call({ top_n: 50 }), { query: 'transformer' });
    expect(standIn.requests.at(-1)!.query).toEqual({
      engine: 'google_scholar',
      q: 'transformer',
      num: '20',
      as_sdt: '7',
      api_key: KEY,
    });
  });

  it('renders each result with its authors and abstract (the snippet), as upstream', async () => {
    const r = await GOOGLE_SCHOLAR.call(call(), { query: 'transformer' });
    expect(standIn.requests.at(-1)!.path).toBe('/search.json');
    const text = r.outputs['formalized_content'] as string;
    expect(text).toContain('Title: Attention is all you need');
    expect(text).toContain(`URL: ${paper.link}`);
    expect(text).toContain(
      '\n author: A Vaswani,N Shazeer,N Parmar…\n Abstract: The dominant sequence transduction models',
    );
    expect(text).toContain('\n author: J Doe,R Roe\n Abstract: no abstract');
    expect((r.outputs['json'] as { result_id: string }[]).map((x) => x.result_id)).toEqual([
      '5Gohgn6QFikJ',
      'q1w2e3r4t5y6',
    ]);
    expect(r.answer).toBe(text);
  });

  it('answers an empty query with nothing, without a call; a search that finds nothing is empty', async () => {
    const before = standIn.requests.length;
    expect((await GOOGLE_SCHOLAR.call(call(), { query: '' })).outputs).toEqual({
      formalized_content: '',
      json: [],
    });
    expect(standIn.requests.length).toBe(before);
    expect((await GOOGLE_SCHOLAR.call(call(), { query: 'zzqx nothing' })).outputs).toEqual({
      formalized_content: '',
      json: [],
    });
  });

  it("fails with SerpApi's refusal, and refuses params upstream would not take, naming them", async () => {
    const refused = GOOGLE_SCHOLAR.call(call({}, 'wrong'), { query: 'x' });
    await expect(refused).rejects.toMatchObject({ code: ProviderErrorCode.Unauthorized });
    await expect(refused).rejects.toThrow('Invalid API key');
    const before = standIn.requests.length;
    await expect(GOOGLE_SCHOLAR.call(call({ sort_by: 'citations' }), { query: 'x' })).rejects.toThrow(
      ProviderException,
    );
    await expect(GOOGLE_SCHOLAR.call(call({ sort_by: 'citations' }), { query: 'x' })).rejects.toThrow(
      'GoogleScholar: sort_by',
    );
    await expect(GOOGLE_SCHOLAR.call(call({ patents: 'yes' }), { query: 'x' })).rejects.toThrow(
      'GoogleScholar: patents',
    );
    await expect(GOOGLE_SCHOLAR.call(call({ year_low: 'last year' }), { query: 'x' })).rejects.toThrow(
      'GoogleScholar: year_low',
    );
    await expect(GOOGLE_SCHOLAR.call(call({ top_n: 0 }), { query: 'x' })).rejects.toThrow(
      'GoogleScholar: top_n',
    );
    expect(standIn.requests.length).toBe(before);
  });
});
