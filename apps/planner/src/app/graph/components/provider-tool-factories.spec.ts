import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { DEV_SECRET_KEY, SecretBox } from '@switchyard/config';
import { createDataSource, ensureDatabase, runMigrationsLocked } from '@switchyard/persistence';
import {
  ProviderKeys,
  TavilyClient,
  YahooFinanceClient,
  providerEnvSchema,
  providerFetch,
} from '@switchyard/provider-tools';
import { ProviderStandIn, yahooTimeseries } from '@switchyard/testing';
import type { GraphToolContext } from '../graph-tool';
import { TavilySearchComponent } from './tavily-search.component';
import { YahooFinanceComponent } from './yahoo-finance.component';

// The Agent tool factories of TavilySearch and YahooFinance, called as the Agent's tool loop calls
// them: the tenant's sealed key read from Postgres, the request sent to a local stand-in.

const box = new SecretBox(DEV_SECRET_KEY);
let ds: DataSource;
let standIn: ProviderStandIn;
let tavily: TavilySearchComponent;
let yahoo: YahooFinanceComponent;
let tenantId: string;

const ctx = (tenant: string): GraphToolContext => ({
  tenantId: tenant,
  runId: randomUUID(),
  componentId: 'Agent:Test',
  signal: new AbortController().signal,
  scope: { canvas: { components: {}, globals: {}, variables: {}, names: {} }, globals: {}, outputs: {} },
});

beforeAll(async () => {
  const url = new URL(process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  url.pathname = '/planner_provider_tools';
  await ensureDatabase(url.toString());
  ds = await createDataSource(url.toString(), { poolSize: 2, name: 'planner_provider_tools' });
  await runMigrationsLocked(ds);
  standIn = await new ProviderStandIn()
    .on('POST', '/search', (req) =>
      req.headers['authorization'] === 'Bearer tvly-tenant'
        ? {
            json: {
              results: [
                { title: 'AAPL', url: 'https://q.example/aapl', content: 'Apple Inc. (AAPL)', score: 1 },
              ],
            },
          }
        : { status: 401, json: { detail: 'invalid key' } },
    )
    .on('GET', '/ws/fundamentals-timeseries/v1/finance/timeseries/AAPL', {
      json: yahooTimeseries({ annualTotalAssets: { '2024-09-30': 364980000000 } }),
    })
    .start();
  const env = providerEnvSchema.parse({ SWITCHYARD_PROVIDER_ALLOW_HOSTS: '127.0.0.1' });
  const keys = new ProviderKeys(ds, box);
  tavily = new TavilySearchComponent(new TavilyClient(standIn.url, providerFetch(env)), keys);
  yahoo = new YahooFinanceComponent(new YahooFinanceClient(standIn.url, providerFetch(env)), keys);
  const [tenant] = (await ds.query(`INSERT INTO tenants (name) VALUES ($1) RETURNING id`, [
    `providers-${randomUUID()}`,
  ])) as { id: string }[];
  tenantId = tenant.id;
  await ds.query(
    `INSERT INTO provider_keys (tenant_id, provider, secret_sealed, fingerprint) VALUES ($1, 'tavily', $2, $3)`,
    [tenantId, box.seal('tvly-tenant'), SecretBox.fingerprint('tvly-tenant')],
  );
});

afterAll(async () => {
  await standIn?.stop();
  await ds?.destroy();
});

describe(TavilySearchComponent.name, () => {
  const entry = { name: 'TavilySearch', params: { max_results: 5, days: 7, api_key: '' } };

  it("offers RAGFlow's indexed function name, description and parameters", () => {
    const tool = tavily.create(entry, 0);
    expect(tool.name).toBe('tavily_search_0');
    expect(tool.description).toMatch(/^Tavily is a search engine optimized for LLMs/);
    expect(tool.parameters).toMatchObject({ type: 'object', required: ['query'] });
    expect(tavily.create({ params: { description: 'Find the stock code' } }, 2).description).toBe(
      'Find the stock code',
    );
  });

  it("searches with the tenant's key and the entry's params, answering the formalized results", async () => {
    const before = standIn.requests.length;
    const answer = await tavily.create(entry, 0).call({ query: 'apple stock code' }, ctx(tenantId));
    expect(answer).toContain(
      '├── Title: AAPL\n├── URL: https://q.example/aapl\n└── Content:\nApple Inc. (AAPL)',
    );
    const sent = JSON.parse(standIn.requests[before].body) as Record<string, unknown>;
    expect(sent).toMatchObject({ query: 'apple stock code', max_results: 5, days: 7 });
    expect(sent).not.toHaveProperty('api_key');
  });

  it('hands the model the error of a tenant without a key instead of failing', async () => {
    const answer = await tavily.create(entry, 0).call({ query: 'x' }, ctx(randomUUID()));
    expect(answer).toMatch(/^Tavily error: Tavily: the tenant has no Tavily API key/);
  });
});

describe(YahooFinanceComponent.name, () => {
  it('reports the sections the entry asks for, for the stock code the model gives', async () => {
    const tool = yahoo.create({ params: { info: false, news: false, balance_sheet: true } }, 1);
    expect(tool.name).toBe('yahoo_finance_1');
    expect(tool.parameters).toMatchObject({ required: ['stock_code'] });
    const report = await tool.call({ stock_code: 'AAPL' }, ctx(tenantId));
    expect(report).toContain('# Balance sheet:');
    // A column of integers only prints them in full (tabulate's int column).
    expect(report).toContain('| Total Assets |          364980000000 |');
  });

  it('answers a failed call as an error text', async () => {
    expect(
      await yahoo
        .create({ params: { info: true, news: false } }, 0)
        .call({ stock_code: 'AAPL' }, ctx(tenantId)),
    ).toMatch(/^YahooFinance error: YahooFinance answered 404/);
  });
});
