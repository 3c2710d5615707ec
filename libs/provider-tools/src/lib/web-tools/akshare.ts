import { z } from 'zod';
import { ProviderErrorCode, ProviderException } from '../provider.exception';
import { type WebToolSpec, emptyResult, getText, positiveInt, shapeOf } from './web-tool';

// East Money's search API, which AkShare's `stock_news_em` reads: a JSONP answer whose
// `result.cmsArticleWebOld` lists the articles (highlights as <em>, full-width spaces inside).
const ArticlesSchema = z
  .object({
    result: z
      .object({
        cmsArticleWebOld: z
          .array(
            z
              .object({
                title: z.string().default(''),
                content: z.string().default(''),
                date: z.string().default(''),
                mediaName: z.string().default(''),
                code: z.string().default(''),
              })
              .passthrough(),
          )
          .default([]),
      })
      .passthrough(),
  })
  .passthrough();

const CALLBACK = 'jQuery35101792940631092459_1764599530165';
const clean = (s: string): string =>
  s
    .replace(/<\/?em>/g, '')
    .replace(/\u3000/g, '')
    .replace(/\r\n/g, ' ');

/** The JSON inside a JSONP answer `cb({...})`. */
function unwrapJsonp(text: string): unknown {
  const start = text.indexOf('(');
  const end = text.lastIndexOf(')');
  if (start < 0 || end <= start) {
    throw new ProviderException(ProviderErrorCode.BadResponse, 'AkShare: East Money answered without JSONP');
  }
  try {
    return JSON.parse(text.slice(start + 1, end)) as unknown;
  } catch {
    throw new ProviderException(
      ProviderErrorCode.BadResponse,
      'AkShare: East Money answered with a body that is not JSON',
    );
  }
}

/**
 * RAGFlow agent/tools/akshare.py: the latest East Money news of an A-share stock (AkShare's
 * `stock_news_em`, read here from the same search API), top_n articles, each rendered as upstream
 * renders them (link, 新闻内容, 发布时间, 文章来源).
 */
export const AKSHARE: WebToolSpec = {
  component: 'AkShare',
  functionName: 'akshare_stock_news',
  envName: 'AKSHARE',
  defaultBaseUrl: 'https://search-api-web.eastmoney.com',
  description:
    'AkShare retrieves the latest news articles for a given Chinese A-share stock from East Money (东方财富).',
  parameters: {
    type: 'object',
    properties: {
      query: { type: 'string', description: "The stock symbol/code to fetch news for, e.g. '600519'." },
    },
    required: ['query'],
  },
  inputs: { query: '{sys.query}' },
  defaults: { top_n: 10 },
  checks: { positiveInt: ['top_n'] },
  async call(ctx, args) {
    const symbol = String(args['query'] ?? '').trim();
    if (!symbol) {
      return emptyResult('AkShare');
    }
    const topN = positiveInt(ctx.params, 'top_n', 'AkShare');
    const param = {
      uid: '',
      keyword: symbol,
      type: ['cmsArticleWebOld'],
      client: 'web',
      clientType: 'web',
      clientVersion: 'curr',
      param: {
        cmsArticleWebOld: {
          searchScope: 'default',
          sort: 'default',
          pageIndex: 1,
          pageSize: Math.max(10, topN),
          preTag: '<em>',
          postTag: '</em>',
        },
      },
    };
    const url = new URL(`${ctx.baseUrl}/search/jsonp`);
    url.search = new URLSearchParams({ cb: CALLBACK, param: JSON.stringify(param) }).toString();
    const parsed = shapeOf(
      ArticlesSchema,
      unwrapJsonp(await getText(ctx, 'AkShare', url.toString())),
      'AkShare: East Money answered without an articles list',
    );
    const articles = (parsed.result.cmsArticleWebOld ?? []).slice(0, topN).map((a) => ({
      title: clean(a.title),
      content: clean(a.content),
      date: a.date,
      source: a.mediaName,
      url: `http://finance.eastmoney.com/a/${a.code}.html`,
    }));
    const text = articles
      .map(
        (a) =>
          `<a href="${a.url}">${a.title}</a>\n 新闻内容: ${a.content} \n发布时间:${a.date} \n文章来源: ${a.source}`,
      )
      .join('\n\n');
    return {
      outputs: { formalized_content: text },
      answer: text,
      summary: `AkShare: ${articles.length} article(s) about ${symbol}`,
    };
  },
};
