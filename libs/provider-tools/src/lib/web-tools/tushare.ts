import { z } from 'zod';
import { type Cell, markdownTable } from '../markdown-table';
import { ProviderErrorCode, ProviderException } from '../provider.exception';
import { type WebToolSpec, emptyResult, getJson, queryTool, shapeOf } from './web-tool';

// TuShare Pro's HTTP API: one POST of `{api_name, token, params}` answered with
// `{code, msg, data: {fields, items}}`; `news` lists the quick news of one source in a time span.
const NewsSchema = z
  .object({
    code: z.number(),
    msg: z.string().nullish(),
    data: z
      .object({
        fields: z.array(z.string()),
        items: z.array(z.array(z.unknown())),
      })
      .passthrough()
      .nullish(),
  })
  .passthrough();

const SOURCES = ['sina', 'wallstreetcn', '10jqka', 'eastmoney', 'yuncaijing', 'fenghuang', 'jinrongjie'];
const DATE = /^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}:\d{2})?$/;

/** RAGFlow agent/tools/tushare.py: the quick news of one source whose content holds the keyword. */
export const TUSHARE: WebToolSpec = {
  component: 'TuShare',
  // Upstream is an old-style component without a meta: the name and texts are ours.
  functionName: 'tushare_news',
  envName: 'TUSHARE',
  defaultBaseUrl: 'http://api.tushare.pro',
  key: { provider: 'tushare', required: true },
  description:
    'TuShare obtains financial news briefs from mainstream financial websites, aiding industry and quantitative research. It returns the briefs whose content contains the keyword.',
  ...queryTool('The keyword to look for in the content of the news briefs (matched case-insensitively).'),
  // An empty end_date is now (upstream's default); the token is the tenant's TuShare key.
  defaults: { src: 'eastmoney', start_date: '2024-01-01 09:00:00', end_date: '', keyword: '' },
  async call(ctx, args) {
    const query = String(args['query'] ?? '');
    if (!query) {
      return emptyResult('TuShare');
    }
    const src = String(ctx.params['src']);
    if (!SOURCES.includes(src)) {
      throw new ProviderException(
        ProviderErrorCode.InvalidInput,
        `TuShare: src "${src}" is not one of ${SOURCES.join(', ')}`,
      );
    }
    const startDate = String(ctx.params['start_date'] ?? '');
    const endDate = String(ctx.params['end_date'] || chinaNow());
    for (const [name, value] of [
      ['start_date', startDate],
      ['end_date', endDate],
    ]) {
      if (!DATE.test(value)) {
        throw new ProviderException(
          ProviderErrorCode.InvalidInput,
          `TuShare: ${name} "${value}" is not a date like 2024-01-01 09:00:00`,
        );
      }
    }
    const body = shapeOf(
      NewsSchema,
      await getJson(ctx, 'TuShare', ctx.baseUrl, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          api_name: 'news',
          token: ctx.apiKey ?? '',
          params: { src, start_date: startDate, end_date: endDate },
        }),
      }),
      'TuShare answered without a code',
    );
    if (body.code !== 0) {
      // Upstream shows TuShare's message (a bad token, too many calls) as its output.
      throw new ProviderException(
        body.code === 40101 ? ProviderErrorCode.Unauthorized : ProviderErrorCode.BadResponse,
        `TuShare: ${body.msg || 'error'} (code ${body.code})`,
      );
    }
    const data = body.data;
    const contentAt = data?.fields.indexOf('content') ?? -1;
    if (!data || contentAt < 0) {
      throw new ProviderException(ProviderErrorCode.BadResponse, 'TuShare answered without news content');
    }
    // The keyword param, else the input; matched as plain text, ignoring case (pandas str.contains).
    const keyword = String(ctx.params['keyword'] || query).toLowerCase();
    const index: number[] = [];
    data.items.forEach((row, i) => {
      const content = row[contentAt];
      if (typeof content === 'string' && content.toLowerCase().includes(keyword)) {
        index.push(i);
      }
    });
    // pandas' to_markdown(): the kept rows' own index first.
    const table = markdownTable(
      data.fields,
      index.map((i) => [i, ...data.items[i]!.map(tableCell)]),
      { nullIs: 'none' },
    );
    return {
      outputs: { formalized_content: table },
      answer: table,
      summary: `TuShare: ${index.length} of ${data.items.length} brief(s) from ${src}`,
    };
  },
};

/** Now in China's time, as TuShare's dates are (`2024-05-01 09:30:00`). */
function chinaNow(): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone: 'Asia/Shanghai',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(new Date())
      .map((p) => [p.type, p.value]),
  );
  return `${parts['year']}-${parts['month']}-${parts['day']} ${parts['hour']}:${parts['minute']}:${parts['second']}`;
}

/** A cell as pandas prints it in a table: objects as JSON, a text on one line. */
export const tableCell = (v: unknown): Cell =>
  v === null || v === undefined
    ? null
    : typeof v === 'number'
      ? v
      : (typeof v === 'object' ? JSON.stringify(v) : String(v)).replace(/\s*\r?\n\s*/g, ' ');
