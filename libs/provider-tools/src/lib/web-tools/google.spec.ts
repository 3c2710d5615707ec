import { ProviderStandIn } from '@switchyard/testing';
import { providerFetch } from '../provider-http';
import { providerEnvSchema } from '../provider-tools.config';
import { ProviderErrorCode, ProviderException } from '../provider.exception';
import { GOOGLE } from './google';
import type { WebToolCall } from './web-tool';

// Google against a local server answering SerpApi's `/search.json?engine=google` in its documented shape.

const KEY = 'serpapi-test-key';
let standIn: ProviderStandIn;
const call = (params: Record<string, unknown> = {}, apiKey = KEY): WebToolCall => ({
  fetch: providerFetch(providerEnvSchema.parse({ SWITCHYARD_PROVIDER_ALLOW_HOSTS: '127.0.0.1' })),
  baseUrl: standIn.url,
  params: { ...GOOGLE.defaults, ...params },
  apiKey,
});

const metadata = (q: string) => ({
  search_metadata: {
    id: '6650e4b4f0b1c2a3d4e5f607',
    status: 'Success',
    json_endpoint: 'https://serpapi.com/searches/abc/6650e4b4f0b1c2a3d4e5f607.json',
    created_at: '2024-05-24 19:00:04 UTC',
    processed_at: '2024-05-24 19:00:04 UTC',
    google_url: `https://www.google.com/search?q=${encodeURIComponent(q)}`,
    total_time_taken: 1.21,
  },
  search_parameters: {
    engine: 'google',
    q,
    google_domain: 'google.com',
    hl: 'en',
    gl: 'us',
    device: 'desktop',
  },
});

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
          search_information: {
            organic_results_state: 'Results for exact spelling',
            query_displayed: q,
            total_results: 1450000,
            time_taken_displayed: 0.38,
          },
          organic_results: [
            {
              position: 1,
              title: 'Coffee - Wikipedia',
              link: 'https://en.wikipedia.org/wiki/Coffee',
              redirect_link: 'https://www.google.com/url?q=https://en.wikipedia.org/wiki/Coffee',
              displayed_link: 'https://en.wikipedia.org › wiki › Coffee',
              snippet: 'Coffee is a beverage brewed from roasted coffee beans.',
              snippet_highlighted_words: ['Coffee'],
              about_this_result: {
                source: {
                  description: 'Wikipedia is a free content online encyclopedia.',
                  source_info_link: 'https://en.wikipedia.org/wiki/Wikipedia',
                },
              },
              source: 'Wikipedia',
            },
            {
              position: 2,
              title: 'The History of Coffee',
              link: 'https://www.ncausa.org/about-coffee/history-of-coffee',
              displayed_link: 'https://www.ncausa.org › About Coffee',
              snippet: 'Coffee grown worldwide can trace its heritage back to Ethiopia.',
              source: 'National Coffee Association',
            },
            {
              position: 3,
              title: 'Coffee beans',
              link: 'https://example.com/beans',
              snippet: 'A third result.',
            },
          ],
        },
      };
    })
    .start();
});

afterAll(async () => {
  await standIn.stop();
});

describe('Google', () => {
  it('searches through SerpApi in the country and language, with start and num, and renders the results', async () => {
    const r = await GOOGLE.call(call({ country: 'us', language: 'en' }), { q: 'coffee', start: 10, num: 2 });
    const req = standIn.requests.at(-1)!;
    expect(req.path).toBe('/search.json');
    expect(req.query).toEqual({
      engine: 'google',
      q: 'coffee',
      google_domain: 'google.com',
      gl: 'us',
      hl: 'en',
      start: '10',
      num: '2',
      api_key: KEY,
    });
    const text = r.outputs['formalized_content'] as string;
    // The source's description comes before the snippet, as upstream.
    expect(text).toContain('Wikipedia is a free content online encyclopedia.');
    expect(text).not.toContain('Coffee is a beverage');
    expect(text).toContain('URL: https://www.ncausa.org/about-coffee/history-of-coffee');
    expect(text).toContain('trace its heritage back to Ethiopia');
    expect(text).not.toContain('A third result.');
    expect((r.outputs['json'] as { position: number }[]).map((x) => x.position)).toEqual([1, 2]);
    expect(r.answer).toBe(text);
  });

  it("takes start and num from the params when the model leaves them out (RAGFlow's defaults)", async () => {
    await GOOGLE.call(call(), { q: 'coffee' });
    expect(standIn.requests.at(-1)!.query).toMatchObject({ gl: 'cn', hl: 'en', start: '0', num: '6' });
  });

  it('answers an empty query with nothing, without a call', async () => {
    const before = standIn.requests.length;
    expect((await GOOGLE.call(call(), { q: '' })).outputs).toEqual({ formalized_content: '' });
    expect(standIn.requests.length).toBe(before);
  });

  it("fails with SerpApi's words: no results, a refused key", async () => {
    const none = GOOGLE.call(call(), { q: 'zzqx nothing' });
    await expect(none).rejects.toMatchObject({ code: ProviderErrorCode.BadResponse });
    await expect(none).rejects.toThrow("Google: Google hasn't returned any results for this query.");
    const refused = GOOGLE.call(call({}, 'wrong'), { q: 'coffee' });
    await expect(refused).rejects.toMatchObject({ code: ProviderErrorCode.Unauthorized });
    await expect(refused).rejects.toThrow('Invalid API key');
  });

  it('refuses a country, language, start or num upstream would not take, naming it', async () => {
    const before = standIn.requests.length;
    await expect(GOOGLE.call(call({ country: 'xx' }), { q: 'a' })).rejects.toThrow(ProviderException);
    await expect(GOOGLE.call(call({ country: 'xx' }), { q: 'a' })).rejects.toThrow('Google: country "xx"');
    await expect(GOOGLE.call(call({ language: 'english' }), { q: 'a' })).rejects.toThrow('Google: language');
    await expect(GOOGLE.call(call(), { q: 'a', start: -10 })).rejects.toThrow('Google: start');
    await expect(GOOGLE.call(call(), { q: 'a', num: 0 })).rejects.toThrow('Google: num');
    expect(standIn.requests.length).toBe(before);
  });
});
