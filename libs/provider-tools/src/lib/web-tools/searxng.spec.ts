import { ProviderStandIn } from '@switchyard/testing';
import { providerFetch } from '../provider-http';
import { providerEnvSchema } from '../provider-tools.config';
import { ProviderErrorCode, ProviderException } from '../provider.exception';
import { SEARXNG } from './searxng';
import type { WebToolCall } from './web-tool';

// SearXNG against a local server answering an instance's `/search?format=json` in its documented shape.

let standIn: ProviderStandIn;
const call = (params: Record<string, unknown> = {}): WebToolCall => ({
  fetch: providerFetch(providerEnvSchema.parse({ SWITCHYARD_PROVIDER_ALLOW_HOSTS: '127.0.0.1' })),
  baseUrl: standIn.url,
  params: { ...SEARXNG.defaults, ...params },
});

const result = (n: number) => ({
  url: `https://example.org/page-${n}`,
  title: `Page ${n}`,
  content: `The content of page ${n}.`,
  engine: 'duckduckgo',
  parsed_url: ['https', 'example.org', `/page-${n}`, '', '', ''],
  template: 'default.html',
  engines: ['duckduckgo', 'brave'],
  positions: [n],
  score: 2 / n,
  category: 'general',
});

beforeAll(async () => {
  standIn = await new ProviderStandIn()
    .on('GET', '/search', (req) =>
      req.query['q'] === 'json off'
        ? { status: 403, text: 'Forbidden' }
        : req.query['q'] === 'odd'
          ? { json: { query: 'odd', results: 'none' } }
          : {
              json: {
                query: req.query['q'],
                number_of_results: 0,
                results: [result(1), result(2), result(3)],
                answers: [],
                corrections: [],
                infoboxes: [],
                suggestions: ['page'],
                unresponsive_engines: [],
              },
            },
    )
    .start();
});

afterAll(async () => {
  await standIn.stop();
});

describe('SearXNG', () => {
  it("searches the instance with upstream's params and keeps the first top_n results", async () => {
    // The editor's top_n is a string; a canvas's searxng_url is not used.
    const r = await SEARXNG.call(call({ top_n: '2', searxng_url: 'http://elsewhere.example' }), {
      query: 'open source search',
    });
    const req = standIn.requests.at(-1)!;
    expect(req.path).toBe('/search');
    expect(req.query).toEqual({
      q: 'open source search',
      format: 'json',
      categories: 'general',
      language: 'auto',
      safesearch: '1',
      pageno: '1',
    });
    const text = r.outputs['formalized_content'] as string;
    expect(text).toContain('Title: Page 1');
    expect(text).toContain('URL: https://example.org/page-2');
    expect(text).toContain('The content of page 2.');
    expect(text).not.toContain('Page 3');
    expect((r.outputs['json'] as { url: string }[]).map((x) => x.url)).toEqual([
      'https://example.org/page-1',
      'https://example.org/page-2',
    ]);
    expect(r.answer).toBe(text);
  });

  it('answers an empty or blank query with nothing, without a call', async () => {
    const before = standIn.requests.length;
    expect((await SEARXNG.call(call(), { query: '  ' })).outputs).toEqual({ formalized_content: '' });
    expect((await SEARXNG.call(call(), {})).outputs).toEqual({ formalized_content: '' });
    expect(standIn.requests.length).toBe(before);
  });

  it("fails with the instance's refusal (JSON not enabled) or an odd answer, and refuses a bad top_n", async () => {
    const refused = SEARXNG.call(call(), { query: 'json off' });
    await expect(refused).rejects.toThrow(ProviderException);
    await expect(refused).rejects.toThrow('SearXNG answered 403: Forbidden');
    const odd = SEARXNG.call(call(), { query: 'odd' });
    await expect(odd).rejects.toMatchObject({ code: ProviderErrorCode.BadResponse });
    await expect(odd).rejects.toThrow('SearXNG answered without a results list');
    await expect(SEARXNG.call(call({ top_n: 'ten' }), { query: 'x' })).rejects.toThrow('SearXNG: top_n');
  });
});
