import { z } from 'zod';
import {
  type WebToolSpec,
  chunksResult,
  emptyResult,
  getJson,
  positiveInt,
  queryTool,
  shapeOf,
} from './web-tool';

// A SearXNG instance's search API with `format=json` (the instance must list `json` under
// `search.formats`, else it answers 403).
const SearchSchema = z
  .object({
    results: z.array(
      z
        .object({
          title: z.string().optional(),
          url: z.string().optional(),
          content: z.string().optional(),
        })
        .passthrough(),
    ),
  })
  .passthrough();

/**
 * RAGFlow agent/tools/searxng.py: the first top_n results of a SearXNG instance. Upstream takes
 * the instance from the canvas's (or the model's) `searxng_url`; here the operator sets it with
 * SWITCHYARD_PROVIDER_URL_SEARXNG (and allows its host in SWITCHYARD_PROVIDER_ALLOW_HOSTS when it
 * is private), so a canvas cannot send requests to a host of its choosing.
 */
export const SEARXNG: WebToolSpec = {
  component: 'SearXNG',
  functionName: 'searxng_search',
  envName: 'SEARXNG',
  defaultBaseUrl: 'http://localhost:8888',
  description:
    'SearXNG is a privacy-focused metasearch engine that aggregates results from multiple search engines without tracking users. It provides comprehensive web search capabilities.',
  // Upstream's meta also offers the model `searxng_url`; it is left out, as it is not used here.
  ...queryTool(
    'The search keywords to execute with SearXNG. The keywords should be the most important words/terms(includes synonyms) from the original request.',
  ),
  // A canvas's `searxng_url` param is ignored, even when it differs from the configured URL.
  defaults: { top_n: 10 },
  checks: { positiveInt: ['top_n'] },
  async call(ctx, args) {
    const query = typeof args['query'] === 'string' ? args['query'] : '';
    if (!query.trim()) {
      return emptyResult('SearXNG');
    }
    // The editor writes top_n as a string ("10"), which counts as its number.
    const topN = positiveInt(ctx.params, 'top_n', 'SearXNG');
    const url = new URL(`${ctx.baseUrl}/search`);
    url.search = new URLSearchParams({
      q: query,
      format: 'json',
      categories: 'general',
      language: 'auto',
      safesearch: '1',
      pageno: '1',
    }).toString();
    const body = shapeOf(
      SearchSchema,
      await getJson(ctx, 'SearXNG', url.toString()),
      'SearXNG answered without a results list',
    );
    const results = body.results.slice(0, topN);
    return chunksResult(
      'SearXNG',
      results.map((r) => ({ title: r.title ?? '', url: r.url ?? '', content: r.content ?? '' })),
      { json: results },
    );
  },
};
