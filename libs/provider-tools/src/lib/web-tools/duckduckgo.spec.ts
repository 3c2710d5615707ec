import { ProviderStandIn } from '@switchyard/testing';
import { providerFetch } from '../provider-http';
import { providerEnvSchema } from '../provider-tools.config';
import { ProviderErrorCode, ProviderException } from '../provider.exception';
import { DUCKDUCKGO } from './duckduckgo';
import type { WebToolCall } from './web-tool';

// DuckDuckGo against a local server answering the Instant Answer API (`/?format=json`) in its
// documented shape.

let standIn: ProviderStandIn;
const call = (params: Record<string, unknown> = {}): WebToolCall => ({
  fetch: providerFetch(providerEnvSchema.parse({ SWITCHYARD_PROVIDER_ALLOW_HOSTS: '127.0.0.1' })),
  baseUrl: standIn.url,
  params: { ...DUCKDUCKGO.defaults, ...params },
});

const icon = { Height: '', URL: '/i/7e2f7c5b.jpg', Width: '' };
const topic = (page: string, name: string, text: string) => ({
  FirstURL: `https://duckduckgo.com/${page}`,
  Icon: icon,
  Result: `<a href="https://duckduckgo.com/${page}">${name}</a>${text}`,
  Text: `${name} ${text}`,
});

const APPLE = {
  Abstract:
    'Apple Inc. is an American multinational technology company headquartered in Cupertino, California.',
  AbstractSource: 'Wikipedia',
  AbstractText:
    'Apple Inc. is an American multinational technology company headquartered in Cupertino, California.',
  AbstractURL: 'https://en.wikipedia.org/wiki/Apple_Inc.',
  Answer: '',
  AnswerType: '',
  Definition: '',
  DefinitionSource: '',
  DefinitionURL: '',
  Entity: 'company',
  Heading: 'Apple Inc.',
  Image: '/i/2a0ac18a.png',
  ImageHeight: 0,
  ImageIsLogo: 1,
  ImageWidth: 0,
  Infobox: { content: [{ data_type: 'string', label: 'Founded', value: 'April 1, 1976' }], meta: [] },
  Redirect: '',
  RelatedTopics: [
    topic('Steve_Jobs', 'Steve Jobs', 'American businessman, inventor, and co-founder of Apple.'),
    {
      Name: 'Products',
      Topics: [
        topic('IPhone', 'iPhone', 'A line of smartphones designed and marketed by Apple.'),
        topic('Mac_(computer)', 'Mac (computer)', 'A brand of personal computers designed by Apple.'),
      ],
    },
  ],
  Results: [
    {
      FirstURL: 'https://www.apple.com/',
      Icon: icon,
      Result: '<a href="https://www.apple.com/"><b>Official site</b></a>',
      Text: 'Official site',
    },
  ],
  Type: 'A',
  meta: { id: 'wikipedia_fathead', name: 'Wikipedia', src_domain: 'en.wikipedia.org' },
};

// What the API answers when it has no instant answer.
const NOTHING = {
  Abstract: '',
  AbstractSource: '',
  AbstractText: '',
  AbstractURL: '',
  Heading: '',
  RelatedTopics: [],
  Results: [],
  Type: '',
};

beforeAll(async () => {
  standIn = await new ProviderStandIn()
    .on('GET', '/', (req) =>
      req.query['q'] === 'busy'
        ? { status: 503, text: 'Service Unavailable' }
        : {
            // The API labels its JSON as JavaScript.
            headers: { 'Content-Type': 'application/x-javascript' },
            json: req.query['q'] === 'Apple' ? APPLE : NOTHING,
          },
    )
    .start();
});

afterAll(async () => {
  await standIn.stop();
});

describe('DuckDuckGo', () => {
  it('asks the Instant Answer API and renders the abstract, then the related topics, groups flattened', async () => {
    const r = await DUCKDUCKGO.call(call({ top_n: 3 }), { query: 'Apple', channel: 'general' });
    const req = standIn.requests.at(-1)!;
    expect(req.path).toBe('/');
    expect(req.query).toEqual({ q: 'Apple', format: 'json', no_html: '1', skip_disambig: '1' });
    const text = r.outputs['formalized_content'] as string;
    expect(text).toContain('Title: Apple Inc.');
    expect(text).toContain('URL: https://en.wikipedia.org/wiki/Apple_Inc.');
    expect(text).toContain('headquartered in Cupertino');
    expect(text).toContain('Title: Steve Jobs');
    expect(text).toContain('iPhone A line of smartphones');
    // top_n 3: the abstract and the first two topics.
    expect(text).not.toContain('personal computers');
    expect(text.indexOf('Cupertino')).toBeLessThan(text.indexOf('Steve Jobs'));
    expect(r.outputs['json']).toEqual([
      {
        title: 'Apple Inc.',
        href: 'https://en.wikipedia.org/wiki/Apple_Inc.',
        body: APPLE.AbstractText,
      },
      {
        title: 'Steve Jobs',
        href: 'https://duckduckgo.com/Steve_Jobs',
        body: 'Steve Jobs American businessman, inventor, and co-founder of Apple.',
      },
      {
        title: 'IPhone',
        href: 'https://duckduckgo.com/IPhone',
        body: 'iPhone A line of smartphones designed and marketed by Apple.',
      },
    ]);
    expect(r.answer).toBe(text);
  });

  it('titles a topic from its URL and searches the same way on the news channel', async () => {
    const r = await DUCKDUCKGO.call(call({ channel: 'news' }), { query: 'Apple', channel: 'news' });
    expect(standIn.requests.at(-1)!.query['q']).toBe('Apple');
    expect(r.outputs['formalized_content']).toContain('Title: Mac (computer)');
    expect((r.outputs['json'] as unknown[]).length).toBe(4);
  });

  it('answers an empty query with nothing, without a call; no instant answer is empty content', async () => {
    const before = standIn.requests.length;
    expect((await DUCKDUCKGO.call(call(), { query: '' })).outputs).toEqual({ formalized_content: '' });
    expect(standIn.requests.length).toBe(before);
    const r = await DUCKDUCKGO.call(call(), { query: 'zzqx' });
    expect(r.outputs).toEqual({ formalized_content: '', json: [] });
  });

  it("fails with DuckDuckGo's error status, and refuses a channel or top_n upstream would not take", async () => {
    const busy = DUCKDUCKGO.call(call(), { query: 'busy' });
    await expect(busy).rejects.toMatchObject({ code: ProviderErrorCode.Unavailable });
    await expect(busy).rejects.toThrow('DuckDuckGo answered 503');
    await expect(DUCKDUCKGO.call(call({ channel: 'images' }), { query: 'x' })).rejects.toThrow(
      ProviderException,
    );
    await expect(DUCKDUCKGO.call(call({ channel: 'images' }), { query: 'x' })).rejects.toThrow(
      'DuckDuckGo: channel',
    );
    await expect(DUCKDUCKGO.call(call(), { query: 'x', channel: 'images' })).rejects.toThrow(
      'DuckDuckGo: channel',
    );
    await expect(DUCKDUCKGO.call(call({ top_n: 1.5 }), { query: 'x' })).rejects.toThrow('DuckDuckGo: top_n');
  });
});
