import { z } from 'zod';
import { ProviderErrorCode, ProviderException } from '../provider.exception';
import {
  type WebToolSpec,
  chunksResult,
  emptyResult,
  getJson,
  positiveInt,
  queryTool,
  shapeOf,
} from './web-tool';

// MediaWiki's query API: one call finds the top_n pages by search and returns each page's intro
// as plain text (what RAGFlow reads as `page.summary`) and its URL.
const PagesSchema = z
  .object({
    query: z
      .object({
        pages: z.record(
          z.string(),
          z
            .object({
              title: z.string(),
              index: z.number().optional(),
              fullurl: z.string().optional(),
              extract: z.string().optional(),
            })
            .passthrough(),
        ),
      })
      .optional(),
  })
  .passthrough();

/** RAGFlow agent/tools/wikipedia.py: the intros of the top_n pages matching the query. */
export const WIKIPEDIA: WebToolSpec = {
  component: 'Wikipedia',
  functionName: 'wikipedia_search',
  envName: 'WIKIPEDIA',
  defaultBaseUrl: 'https://{language}.wikipedia.org',
  description:
    "A wide range of how-to and information pages are made available in wikipedia. Since 2001, it has grown rapidly to become the world's largest reference website. From Wikipedia, the free encyclopedia.",
  ...queryTool(
    'The search keyword to execute with wikipedia. The keyword MUST be a specific subject that can match the title.',
  ),
  defaults: { top_n: 10, language: 'en' },
  checks: { positiveInt: ['top_n'] },
  async call(ctx, args) {
    const query = String(args['query'] ?? '');
    if (!query) {
      return emptyResult('Wikipedia');
    }
    const topN = positiveInt(ctx.params, 'top_n', 'Wikipedia');
    if (!/^[a-z-]{2,12}$/.test(String(ctx.params['language']))) {
      throw new ProviderException(
        ProviderErrorCode.InvalidInput,
        `Wikipedia: language "${String(ctx.params['language'])}" is not a Wikipedia language code`,
      );
    }
    const url = new URL(`${ctx.baseUrl}/w/api.php`);
    url.search = new URLSearchParams({
      action: 'query',
      format: 'json',
      formatversion: '1',
      generator: 'search',
      gsrsearch: query,
      gsrlimit: String(topN),
      prop: 'extracts|info',
      exintro: '1',
      explaintext: '1',
      exlimit: 'max',
      inprop: 'url',
      redirects: '1',
    }).toString();
    const body = shapeOf(
      PagesSchema,
      await getJson(ctx, 'Wikipedia', url.toString()),
      'Wikipedia answered without a pages list',
    );
    // The search's order (`index`), as the wikipedia package lists its results.
    const pages = Object.values(body.query?.pages ?? {}).sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
    return chunksResult(
      'Wikipedia',
      pages.map((p) => ({ title: p.title, url: p.fullurl ?? '', content: p.extract ?? '' })),
    );
  },
};
