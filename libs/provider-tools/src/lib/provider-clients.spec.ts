import { ProviderStandIn, yahooTimeseries } from '@switchyard/testing';
import { providerFetch } from './provider-http';
import { type ProviderEnv, providerEnvSchema } from './provider-tools.config';
import { ProviderErrorCode, ProviderException } from './provider.exception';
import { TavilyClient } from './tavily.client';
import { YahooFinanceClient } from './yahoo-finance.client';

// The clients against local servers standing in for Tavily and Yahoo Finance, through the address
// guard: 127.0.0.1 is reachable only because the allow-list names it.

let standIn: ProviderStandIn;
const env = (allow: string): ProviderEnv =>
  providerEnvSchema.parse({
    SWITCHYARD_TAVILY_BASE_URL: standIn.url,
    SWITCHYARD_YAHOO_FINANCE_BASE_URL: `${standIn.url}/`,
    SWITCHYARD_PROVIDER_ALLOW_HOSTS: allow,
  });
const tavily = (allow = '127.0.0.1') => new TavilyClient(standIn.url, providerFetch(env(allow)));
const yahoo = (allow = '127.0.0.1') =>
  new YahooFinanceClient(env(allow).SWITCHYARD_YAHOO_FINANCE_BASE_URL, providerFetch(env(allow)));

beforeAll(async () => {
  standIn = await new ProviderStandIn()
    .on('POST', '/search', (req) =>
      req.headers['authorization'] === 'Bearer tvly-good'
        ? {
            json: {
              query: (JSON.parse(req.body) as { query: string }).query,
              results: [
                {
                  title: 'Apple',
                  url: 'https://apple.example/a',
                  content: 'Apple designs iPhones.',
                  score: 0.9,
                  raw_content: null,
                },
              ],
            },
          }
        : { status: 401, json: { detail: { error: 'Unauthorized: missing or invalid API key.' } } },
    )
    .on('GET', '/ws/fundamentals-timeseries/v1/finance/timeseries/AAPL', (req) => ({
      json: yahooTimeseries(
        req.query['type']?.startsWith('annual')
          ? {
              annualTotalAssets: { '2023-09-30': 352583000000, '2024-09-30': 364980000000 },
              annualTotalDebt: { '2024-09-30': 106629000000 },
            }
          : { quarterlyTotalAssets: { '2024-12-31': 344085000000 } },
      ),
    }))
    .on('GET', '/v1/finance/search', {
      json: {
        news: [
          {
            uuid: 'n1',
            title: 'Apple up',
            publisher: 'Wire',
            link: 'https://n.example/1',
            providerPublishTime: 1700000000,
            type: 'STORY',
          },
        ],
      },
    })
    .on('GET', '/v10/finance/quoteSummary/NOPE', {
      status: 404,
      json: { quoteSummary: { result: null, error: { description: 'Quote not found for symbol: NOPE' } } },
    })
    .start();
});

afterAll(async () => {
  await standIn.stop();
});

describe(TavilyClient.name, () => {
  it('searches with the key as a bearer token and RAGFlow params, and formalizes the results', async () => {
    const before = standIn.requests.length;
    const out = await tavily().search({ query: 'apple stock', max_results: 5, days: 7 }, 'tvly-good');
    const sent = standIn.requests[before];
    expect(JSON.parse(sent.body)).toEqual({
      query: 'apple stock',
      topic: 'general',
      search_depth: 'basic',
      max_results: 5,
      days: 7,
      include_answer: false,
      include_image_descriptions: false,
      include_domains: [],
      exclude_domains: [],
      include_images: false,
      include_raw_content: false,
    });
    expect(out.json).toHaveLength(1);
    expect(out.formalized_content).toBe(
      '\nID: 198\n├── Title: Apple\n├── URL: https://apple.example/a\n└── Content:\nApple designs iPhones.',
    );
  });

  it('names a refused key, a missing key and a bad param', async () => {
    await expect(tavily().search({ query: 'x' }, 'tvly-bad')).rejects.toMatchObject({
      code: ProviderErrorCode.Unauthorized,
      message: expect.stringContaining('Tavily answered 401'),
    });
    await expect(tavily().search({ query: 'x' }, undefined)).rejects.toMatchObject({
      code: ProviderErrorCode.NoKey,
    });
    await expect(tavily().search({ query: 'x', topic: 'sports' as 'news' }, 'tvly-good')).rejects.toThrow(
      /Tavily: topic/,
    );
  });

  it('answers an empty query without a call', async () => {
    const before = standIn.requests.length;
    expect(await tavily().search({ query: '' }, undefined)).toEqual({ formalized_content: '', json: [] });
    expect(standIn.requests).toHaveLength(before);
  });

  it('cannot reach the stand-in on loopback unless the allow-list names it', async () => {
    const before = standIn.requests.length;
    const err = (await tavily('')
      .search({ query: 'x' }, 'tvly-good')
      .catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(ProviderException);
    expect(err.message).toContain(
      '127.0.0.1 is a loopback address (allow it with SWITCHYARD_PROVIDER_ALLOW_HOSTS)',
    );
    expect(standIn.requests).toHaveLength(before);
  });
});

describe(YahooFinanceClient.name, () => {
  it('reports balance sheets from the fundamentals time series, newest date first', async () => {
    const report = await yahoo().report('AAPL', { info: false, news: false, balance_sheet: true }, undefined);
    expect(report).toBe(
      [
        '# Balance sheet:',
        '|              |   2024-09-30 00:00:00 |   2023-09-30 00:00:00 |',
        '|:-------------|----------------------:|----------------------:|',
        '| Total Assets |          364980000000 |           3.52583e+11 |',
        '| Total Debt   |          106629000000 |         nan           |',
        '',
        '',
        '# Quarterly balance sheet:',
        '|              |   2024-12-31 00:00:00 |',
        '|:-------------|----------------------:|',
        '| Total Assets |          344085000000 |',
        '',
      ].join('\n'),
    );
    const asked = standIn.requests.find((r) => r.path.includes('timeseries'))!;
    expect(asked.query['type']).toContain('annualTotalAssets');
  });

  it('reports news and sends a tenant key when one is given', async () => {
    const report = await yahoo().report('AAPL', { info: false }, 'yf-key');
    expect(report).toContain('# News:');
    expect(report).toContain('| Apple up');
    expect(standIn.requests.at(-1)!.headers['x-api-key']).toBe('yf-key');
  });

  it('names an unknown symbol with what Yahoo said; an empty code makes no call', async () => {
    await expect(yahoo().report('NOPE', {}, undefined)).rejects.toThrow('Quote not found for symbol: NOPE');
    expect(await yahoo().report('  ', {}, undefined)).toBe('');
  });
});
