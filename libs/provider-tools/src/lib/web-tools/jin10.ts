import { z } from 'zod';
import { ProviderErrorCode, ProviderException } from '../provider.exception';
import { markdownTable } from '../markdown-table';
import { tableCell } from './tushare';
import { type WebToolSpec, emptyResult, getJson, queryTool, shapeOf } from './web-tool';

// Jin10's open data API: GET /data-api/<kind> with the key in the `secret-key` header, answered
// with `{status, message, data: [...]}`.
const AnswerSchema = z
  .object({
    status: z.number().optional(),
    message: z.string().nullish(),
    data: z.array(z.record(z.string(), z.unknown())).nullish(),
  })
  .passthrough();

const FlashSchema = z.array(
  z.object({ data: z.object({ content: z.string().nullish() }).passthrough().nullish() }).passthrough(),
);

const CHOICES: Record<string, readonly string[]> = {
  type: ['flash', 'calendar', 'symbols', 'news'],
  flash_type: ['1', '2', '3', '4', '5'],
  calendar_type: ['cj', 'qh', 'hk', 'us'],
  calendar_datatype: ['data', 'event', 'holiday'],
  symbols_type: ['GOODS', 'FOREX', 'FUTURE', 'CRYPTO'],
  symbols_datatype: ['symbols', 'quotes'],
};

// Upstream's names for the short keys of the symbols and quotes lists, in its order.
const SYMBOL_KEYS: Record<string, string> = {
  c: 'Commodity Code',
  e: 'Stock Exchange',
  n: 'Commodity Name',
  t: 'Commodity Type',
};
const QUOTE_KEYS: Record<string, string> = {
  a: 'Selling Price',
  b: 'Buying Price',
  c: 'Commodity Code',
  e: 'Stock Exchange',
  h: 'Highest Price',
  hc: 'Yesterday’s Closing Price',
  l: 'Lowest Price',
  o: 'Opening Price',
  p: 'Latest Price',
  t: 'Market Quote Time',
};

/** RAGFlow agent/tools/jin10.py: Jin10's quick news, calendars, quotes or reference news. */
export const JIN10: WebToolSpec = {
  component: 'Jin10',
  // Upstream is an old-style component without a meta: the name and texts are ours.
  functionName: 'jin10',
  envName: 'JIN10',
  defaultBaseUrl: 'https://open-data-api.jin10.com',
  key: { provider: 'jin10', required: true },
  description:
    "Jin10 retrieves financial information from the Jin10 Open Platform: quick news, calendars, quotes or reference news. Which of them is returned is set by the tool's settings.",
  ...queryTool('The financial information wanted (any non-empty text runs the lookup the settings choose).'),
  // The secret key is the tenant's Jin10 key.
  defaults: {
    type: 'flash',
    flash_type: '1',
    calendar_type: 'cj',
    calendar_datatype: 'data',
    symbols_type: 'GOODS',
    symbols_datatype: 'symbols',
    contain: '',
    filter: '',
  },
  async call(ctx, args) {
    const query = String(args['query'] ?? '');
    if (!query) {
      return emptyResult('Jin10');
    }
    const p = Object.fromEntries(
      Object.entries(CHOICES).map(([name, allowed]) => {
        const v = String(ctx.params[name] ?? '');
        if (!allowed.includes(v)) {
          throw new ProviderException(
            ProviderErrorCode.InvalidInput,
            `Jin10: ${name} "${v}" is not one of ${allowed.join(', ')}`,
          );
        }
        return [name, v];
      }),
    ) as Record<string, string>;
    // Upstream sends its params as a JSON body on a GET; fetch cannot, so they go in the query.
    const search = new URLSearchParams();
    const filters = () => {
      for (const name of ['contain', 'filter']) {
        const v = String(ctx.params[name] ?? '');
        if (v) {
          search.set(name, v);
        }
      }
    };
    let path: string;
    switch (p['type']) {
      case 'flash':
        path = 'flash';
        search.set('category', p['flash_type']!);
        filters();
        break;
      case 'calendar':
        path = `calendar/${p['calendar_datatype']}`;
        search.set('category', p['calendar_type']!);
        break;
      case 'symbols':
        path = p['symbols_datatype']!;
        search.set('type', p['symbols_type']!);
        if (path === 'quotes') {
          // Upstream asks for the quotes of this one code.
          search.set('codes', 'BTCUSD');
        }
        break;
      default:
        path = 'news';
        filters();
    }
    const url = new URL(`${ctx.baseUrl}/data-api/${path}`);
    url.search = search.toString();
    const parsed = shapeOf(
      AnswerSchema,
      await getJson(ctx, 'Jin10', url.toString(), { headers: { 'secret-key': ctx.apiKey ?? '' } }),
      'Jin10 answered without a data list',
    );
    const { status, message, data } = parsed;
    if ((status !== undefined && status !== 200) || !data) {
      throw new ProviderException(
        status === 401 || status === 403 ? ProviderErrorCode.Unauthorized : ProviderErrorCode.BadResponse,
        `Jin10: ${message || 'no data'}${status !== undefined ? ` (status ${status})` : ''}`,
      );
    }
    let text: string;
    if (p['type'] === 'flash') {
      const flash = shapeOf(FlashSchema, data, 'Jin10 answered flash news without data');
      // One line per piece of news; those without text (data releases) are left out.
      text = flash.flatMap((f) => (f.data?.content ? [f.data.content] : [])).join('\n');
    } else {
      const names = p['type'] !== 'symbols' ? undefined : path === 'quotes' ? QUOTE_KEYS : SYMBOL_KEYS;
      text = recordsTable(names ? data.map((r) => renamed(r, names)) : data);
    }
    return {
      outputs: { formalized_content: text },
      answer: text,
      summary: `Jin10: ${data.length} ${p['type']} item(s)`,
    };
  },
};

/** A record with the short keys renamed and moved last, as upstream's `del` and re-add leave them. */
function renamed(record: Record<string, unknown>, names: Record<string, string>): Record<string, unknown> {
  const out = Object.fromEntries(Object.entries(record).filter(([k]) => !(k in names)));
  for (const [short, long] of Object.entries(names)) {
    out[long] = record[short];
  }
  return out;
}

/** Records as pandas tabulates a list of dicts: the keys in first-seen order. */
function recordsTable(records: readonly Record<string, unknown>[]): string {
  if (records.length === 0) {
    return '';
  }
  const columns = [...new Set(records.flatMap((r) => Object.keys(r)))];
  return markdownTable(
    columns,
    records.map((r, i) => [i, ...columns.map((c) => tableCell(r[c]))]),
    { nullIs: 'none' },
  );
}
