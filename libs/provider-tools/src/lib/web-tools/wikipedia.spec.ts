import { ProviderStandIn } from '@switchyard/testing';
import { providerFetch } from '../provider-http';
import { providerEnvSchema } from '../provider-tools.config';
import { ProviderException } from '../provider.exception';
import { type WebToolCall, fillBaseUrl } from './web-tool';
import { WIKIPEDIA } from './wikipedia';

// Wikipedia against a local server answering MediaWiki's query API in its documented shape.

let standIn: ProviderStandIn;
const call = (params: Record<string, unknown> = {}): WebToolCall => ({
  fetch: providerFetch(providerEnvSchema.parse({ SWITCHYARD_PROVIDER_ALLOW_HOSTS: '127.0.0.1' })),
  baseUrl: standIn.url,
  params: { ...WIKIPEDIA.defaults, ...params },
});

beforeAll(async () => {
  standIn = await new ProviderStandIn()
    .on('GET', '/w/api.php', (req) => ({
      json:
        req.query['gsrsearch'] === 'nothing'
          ? { batchcomplete: '' }
          : {
              batchcomplete: '',
              query: {
                pages: {
                  '736': {
                    pageid: 736,
                    ns: 0,
                    title: 'Albert Einstein',
                    index: 2,
                    extract: 'Albert Einstein was a German-born theoretical physicist.',
                    fullurl: 'https://en.wikipedia.org/wiki/Albert_Einstein',
                  },
                  '9': {
                    pageid: 9,
                    ns: 0,
                    title: 'Relativity',
                    index: 1,
                    extract: 'The theory of relativity usually encompasses two theories.',
                    fullurl: 'https://en.wikipedia.org/wiki/Theory_of_relativity',
                  },
                },
              },
            },
    }))
    .start();
});

afterAll(async () => {
  await standIn.stop();
});

describe('Wikipedia', () => {
  it("searches with the params (top_n, the query) and renders the intros in the search's order", async () => {
    const r = await WIKIPEDIA.call(call({ top_n: 2 }), { query: 'relativity' });
    const q = standIn.requests.at(-1)!.query;
    expect(q).toMatchObject({ action: 'query', generator: 'search', gsrsearch: 'relativity', gsrlimit: '2' });
    const text = r.outputs['formalized_content'] as string;
    expect(text.indexOf('Relativity')).toBeLessThan(text.indexOf('Albert Einstein'));
    expect(text).toContain('URL: https://en.wikipedia.org/wiki/Albert_Einstein');
    expect(text).toContain('German-born theoretical physicist');
    expect(r.answer).toBe(text);
  });

  it('answers an empty query with nothing, without a call; no pages is empty content', async () => {
    const before = standIn.requests.length;
    expect((await WIKIPEDIA.call(call(), { query: '' })).outputs).toEqual({ formalized_content: '' });
    expect(standIn.requests.length).toBe(before);
    expect((await WIKIPEDIA.call(call(), { query: 'nothing' })).outputs['formalized_content']).toBe('');
  });

  it('refuses a top_n that is not a positive integer, naming it', async () => {
    await expect(WIKIPEDIA.call(call({ top_n: 0 }), { query: 'x' })).rejects.toThrow(ProviderException);
    await expect(WIKIPEDIA.call(call({ top_n: 0 }), { query: 'x' })).rejects.toThrow('top_n');
  });

  it("fills the language into the real service's URL", () => {
    expect(fillBaseUrl(WIKIPEDIA.defaultBaseUrl, { language: 'de' })).toBe('https://de.wikipedia.org');
  });
});
