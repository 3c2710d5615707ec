import { z } from 'zod';
import type { GuardedFetch } from '@switchyard/net-guard';
import { type Cell, markdownTable } from './markdown-table';
import { parseParams, requestJson } from './provider-http';
import { ProviderErrorCode, ProviderException } from './provider.exception';

/**
 * YahooFinance's params (RAGFlow agent/tools/yahoofinance.py, which uses the yfinance library):
 * which sections the report has. `count` is accepted and, as upstream, unused.
 */
export const YahooFinanceParamsSchema = z.object({
  info: z.boolean().default(true),
  history: z.boolean().default(false),
  count: z.boolean().default(false),
  financials: z.boolean().default(false),
  income_stmt: z.boolean().default(false),
  balance_sheet: z.boolean().default(false),
  cash_flow_statement: z.boolean().default(false),
  news: z.boolean().default(true),
});
export type YahooFinanceParams = z.input<typeof YahooFinanceParamsSchema>;

export const YAHOO_TOOL_DESCRIPTION =
  'The Yahoo Finance is a service that provides access to real-time and historical stock market data. It enables users to fetch various types of stock information, such as price quotes, historical prices, company profiles, and financial news. The API offers structured data, allowing developers to integrate market data into their applications and analysis tools.';

export const YAHOO_TOOL_PARAMETERS: Record<string, unknown> = {
  type: 'object',
  properties: { stock_code: { type: 'string', description: 'The stock code or company name.' } },
  required: ['stock_code'],
};

// The statement lines yfinance asks the fundamentals time series for (a subset), in report order.
const BALANCE_SHEET_KEYS = [
  'TotalAssets',
  'TotalLiabilitiesNetMinorityInterest',
  'TotalEquityGrossMinorityInterest',
  'TangibleBookValue',
  'TotalDebt',
  'NetDebt',
  'CashAndCashEquivalents',
  'WorkingCapital',
  'LongTermDebt',
  'CommonStockEquity',
  'OrdinarySharesNumber',
];
const CASH_FLOW_KEYS = [
  'FreeCashFlow',
  'OperatingCashFlow',
  'CapitalExpenditure',
  'InvestingCashFlow',
  'FinancingCashFlow',
  'RepurchaseOfCapitalStock',
  'CashDividendsPaid',
  'EndCashPosition',
];
const INFO_MODULES = [
  'assetProfile',
  'summaryDetail',
  'financialData',
  'defaultKeyStatistics',
  'quoteType',
  'price',
];

/** yfinance's `camel2title`: `TotalAssets` → `Total Assets`. */
const title = (key: string) =>
  key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/^./, (c) => c.toUpperCase());

/** A Yahoo value: `{raw, fmt}` objects give their raw value. */
function plain(v: unknown): unknown {
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    if ('raw' in o) {
      return o['raw'];
    }
    if ('fmt' in o) {
      return o['fmt'];
    }
    return Object.keys(o).length ? JSON.stringify(o) : null;
  }
  return Array.isArray(v) ? JSON.stringify(v.map(plain)) : v;
}

const cell = (v: unknown): Cell =>
  v === null || v === undefined
    ? null
    : typeof v === 'number' || typeof v === 'string'
      ? v
      : JSON.stringify(v);

/** Yahoo Finance over its HTTP endpoints (quoteSummary, chart, fundamentals-timeseries, search). */
export class YahooFinanceClient {
  constructor(
    private readonly baseUrl: string,
    private readonly fetcher: GuardedFetch,
  ) {}

  /** RAGFlow's report: the chosen sections as markdown, joined by blank lines. */
  async report(
    stockCode: string,
    params: YahooFinanceParams,
    apiKey: string | undefined,
    signal?: AbortSignal,
  ): Promise<string> {
    const p = parseParams(YahooFinanceParamsSchema, params, 'YahooFinance');
    const code = stockCode.trim();
    if (!code) {
      return '';
    }
    const get = (path: string, query: Record<string, string>) =>
      requestJson(
        this.fetcher,
        'YahooFinance',
        `${this.baseUrl}${path}?${new URLSearchParams(query).toString()}`,
        {
          method: 'GET',
          // A key is optional: Yahoo's own endpoints need none, a keyed mirror reads it here.
          headers: { Accept: 'application/json', ...(apiKey ? { 'x-api-key': apiKey } : {}) },
          ...(signal ? { signal } : {}),
        },
      );
    const symbol = encodeURIComponent(code);
    const sections: string[] = [];
    if (p.info) {
      sections.push(`# Information:\n${await this.info(get, symbol)}\n`);
    }
    if (p.history) {
      sections.push(`# History:\n${await this.history(get, symbol)}\n`);
    }
    if (p.financials) {
      sections.push(`# Calendar:\n${await this.calendar(get, symbol)}\n`);
    }
    if (p.balance_sheet) {
      sections.push(`# Balance sheet:\n${await this.statement(get, code, 'annual', BALANCE_SHEET_KEYS)}\n`);
      sections.push(
        `# Quarterly balance sheet:\n${await this.statement(get, code, 'quarterly', BALANCE_SHEET_KEYS)}\n`,
      );
    }
    if (p.cash_flow_statement) {
      sections.push(`# Cash flow statement:\n${await this.statement(get, code, 'annual', CASH_FLOW_KEYS)}\n`);
      sections.push(
        `# Quarterly cash flow statement:\n${await this.statement(get, code, 'quarterly', CASH_FLOW_KEYS)}\n`,
      );
    }
    if (p.news) {
      sections.push(`# News:\n${await this.news(get, code)}\n`);
    }
    return sections.join('\n\n');
  }

  private async quoteSummary(
    get: Getter,
    symbol: string,
    modules: string[],
  ): Promise<Record<string, unknown>> {
    const body = (await get(`/v10/finance/quoteSummary/${symbol}`, { modules: modules.join(',') })) as {
      quoteSummary?: { result?: Record<string, unknown>[] | null; error?: { description?: string } | null };
    };
    const result = body.quoteSummary?.result?.[0];
    if (!result) {
      throw new ProviderException(
        ProviderErrorCode.BadResponse,
        `YahooFinance: no data for ${decodeURIComponent(symbol)}${body.quoteSummary?.error?.description ? ` (${body.quoteSummary.error.description})` : ''}`,
      );
    }
    return result;
  }

  /** `pd.Series(ticker.info).to_markdown()`: every module's fields in one key/value column. */
  private async info(get: Getter, symbol: string): Promise<string> {
    const result = await this.quoteSummary(get, symbol, INFO_MODULES);
    const info: Record<string, unknown> = {};
    for (const module of INFO_MODULES) {
      for (const [k, v] of Object.entries((result[module] as Record<string, unknown> | undefined) ?? {})) {
        if (k !== 'maxAge' && !(k in info)) {
          info[k] = plain(v);
        }
      }
    }
    return markdownTable(
      ['0'],
      Object.entries(info).map(([k, v]) => [k, cell(v)]),
    );
  }

  private async calendar(get: Getter, symbol: string): Promise<string> {
    const result = await this.quoteSummary(get, symbol, ['calendarEvents']);
    const events = (result['calendarEvents'] as Record<string, unknown> | undefined) ?? {};
    const rows: Cell[][] = [];
    for (const [k, v] of Object.entries({
      ...events,
      ...((events['earnings'] as object | undefined) ?? {}),
    })) {
      if (k !== 'maxAge' && k !== 'earnings') {
        rows.push([title(k), cell(plain(v))]);
      }
    }
    return markdownTable(['0'], rows);
  }

  /** `ticker.history()`: a month of daily bars. */
  private async history(get: Getter, symbol: string): Promise<string> {
    const body = (await get(`/v8/finance/chart/${symbol}`, { range: '1mo', interval: '1d' })) as {
      chart?: {
        result?: {
          timestamp?: number[];
          indicators?: { quote?: Record<string, (number | null)[]>[] };
          meta?: { exchangeTimezoneName?: string };
        }[];
      };
    };
    const r = body.chart?.result?.[0];
    if (!r) {
      throw new ProviderException(
        ProviderErrorCode.BadResponse,
        `YahooFinance: no price history for ${symbol}`,
      );
    }
    const q = r.indicators?.quote?.[0] ?? {};
    const rows = (r.timestamp ?? []).map((t, i) => [
      new Date(t * 1000).toISOString().replace('T', ' ').slice(0, 19),
      ...['open', 'high', 'low', 'close', 'volume'].map((k) => q[k]?.[i] ?? null),
    ]);
    return markdownTable(['Open', 'High', 'Low', 'Close', 'Volume'], rows);
  }

  /** A statement from the fundamentals time series: one row per line, one column per date, newest first. */
  private async statement(
    get: Getter,
    symbol: string,
    period: 'annual' | 'quarterly',
    keys: string[],
  ): Promise<string> {
    const body = (await get(
      `/ws/fundamentals-timeseries/v1/finance/timeseries/${encodeURIComponent(symbol)}`,
      {
        symbol,
        type: keys.map((k) => `${period}${k}`).join(','),
        period1: '493590046',
        period2: String(Math.floor(Date.now() / 1000)),
      },
    )) as { timeseries?: { result?: Record<string, unknown>[] } };
    const values = new Map<string, Map<string, number | null>>();
    const dates = new Set<string>();
    for (const series of body.timeseries?.result ?? []) {
      const type = ((series['meta'] as { type?: string[] } | undefined)?.type ?? [])[0];
      if (!type) {
        continue;
      }
      const points =
        (series[type] as { asOfDate?: string; reportedValue?: { raw?: number } }[] | undefined) ?? [];
      const key = type.slice(period.length);
      const row = values.get(key) ?? new Map<string, number | null>();
      for (const point of points) {
        if (point?.asOfDate) {
          dates.add(point.asOfDate);
          row.set(point.asOfDate, point.reportedValue?.raw ?? null);
        }
      }
      values.set(key, row);
    }
    const columns = [...dates].sort().reverse();
    const rows = keys
      .filter((k) => values.has(k))
      .map((k) => [title(k), ...columns.map((d) => values.get(k)?.get(d) ?? null)]);
    return markdownTable(
      columns.map((d) => `${d} 00:00:00`),
      rows,
    );
  }

  private async news(get: Getter, symbol: string): Promise<string> {
    const body = (await get('/v1/finance/search', { q: symbol, quotesCount: '0', newsCount: '10' })) as {
      news?: Record<string, unknown>[];
    };
    const columns = ['uuid', 'title', 'publisher', 'link', 'providerPublishTime', 'type'];
    return markdownTable(
      columns,
      (body.news ?? []).map((n, i) => [String(i), ...columns.map((c) => cell(n[c]))]),
    );
  }
}

type Getter = (path: string, query: Record<string, string>) => Promise<unknown>;
