import { z } from 'zod';
import { ProviderErrorCode, ProviderException } from '../provider.exception';
import { serpApiSearch } from './google';
import { type WebToolSpec, chunksResult, emptyResult, positiveInt, queryTool } from './web-tool';

// SerpApi gives at most 20 results a page.
const MAX_NUM = 20;

const ScholarResultSchema = z
  .object({
    title: z.string().optional(),
    link: z.string().optional(),
    snippet: z.string().optional(),
    publication_info: z
      .object({
        summary: z.string().optional(),
        authors: z.array(z.object({ name: z.string() }).passthrough()).optional(),
      })
      .passthrough()
      .optional(),
  })
  .passthrough();

/** A year param, unset when empty. */
function year(params: Record<string, unknown>, name: string): number | undefined {
  const raw = params[name];
  if (raw === undefined || raw === null || raw === '') {
    return undefined;
  }
  const v = Number(raw);
  if (!Number.isInteger(v) || v < 0) {
    throw new ProviderException(ProviderErrorCode.InvalidInput, `GoogleScholar: ${name} must be a year`);
  }
  return v;
}

/** The authors line of a result: Google's byline before its first " - " ("A Einstein, B Podolsky - Physical review, 1935 - APS"). */
function authorsOf(r: z.infer<typeof ScholarResultSchema>): string {
  const summary = r.publication_info?.summary;
  if (summary) {
    return summary.split(' - ')[0].split(/,\s*/).join(',');
  }
  return (r.publication_info?.authors ?? []).map((a) => a.name).join(',');
}

/**
 * RAGFlow agent/tools/googlescholar.py: the top_n Google Scholar results for the query, rendered
 * as upstream (authors and abstract). Upstream scrapes Google Scholar with the `scholarly`
 * package, which Google blocks from servers and which has no stable form; here the same search
 * goes through SerpApi's Google Scholar API (the tenant's `serpapi` key): sort_by "date" is
 * `scisbd=1` (scholarly's default for it), patents `as_sdt=7` or `0`, year_low/year_high
 * `as_ylo`/`as_yhi`, top_n `num` (at most 20, SerpApi's page). Google's snippet stands for the
 * abstract, and `json` holds SerpApi's results rather than scholarly's.
 */
export const GOOGLE_SCHOLAR: WebToolSpec = {
  component: 'GoogleScholar',
  functionName: 'google_scholar_search',
  envName: 'GOOGLESCHOLAR',
  defaultBaseUrl: 'https://serpapi.com',
  key: { provider: 'serpapi', required: true },
  description:
    'Google Scholar provides a simple way to broadly search for scholarly literature. From one place, you can search across many disciplines and sources: articles, theses, books, abstracts and court opinions, from academic publishers, professional societies, online repositories, universities and other web sites. Google Scholar helps you find relevant work across the world of scholarly research.',
  ...queryTool(
    'The search keyword to execute with Google Scholar. The keywords should be the most important words/terms(includes synonyms) from the original request.',
  ),
  defaults: { top_n: 12, sort_by: 'relevance', year_low: null, year_high: null, patents: true },
  checks: { positiveInt: ['top_n'] },
  async call(ctx, args) {
    const query = String(args['query'] ?? '');
    if (!query) {
      return { ...emptyResult('GoogleScholar'), outputs: { formalized_content: '', json: [] } };
    }
    const topN = positiveInt(ctx.params, 'top_n', 'GoogleScholar');
    const sortBy = ctx.params['sort_by'];
    if (sortBy !== 'relevance' && sortBy !== 'date') {
      throw new ProviderException(
        ProviderErrorCode.InvalidInput,
        'GoogleScholar: sort_by must be "date" or "relevance"',
      );
    }
    const patents = ctx.params['patents'];
    if (typeof patents !== 'boolean') {
      throw new ProviderException(
        ProviderErrorCode.InvalidInput,
        'GoogleScholar: patents must be true or false',
      );
    }
    const yearLow = year(ctx.params, 'year_low');
    const yearHigh = year(ctx.params, 'year_high');
    const answer = await serpApiSearch(ctx, 'GoogleScholar', {
      engine: 'google_scholar',
      q: query,
      num: String(Math.min(topN, MAX_NUM)),
      as_sdt: patents ? '7' : '0',
      ...(sortBy === 'date' ? { scisbd: '1' } : {}),
      ...(yearLow !== undefined ? { as_ylo: String(yearLow) } : {}),
      ...(yearHigh !== undefined ? { as_yhi: String(yearHigh) } : {}),
    });
    let results: Record<string, unknown>[];
    if (answer.organic_results) {
      results = answer.organic_results.slice(0, topN);
    } else if (answer.search_metadata?.status === 'Success') {
      // A search that found nothing: SerpApi says so in `error`; upstream's answer is empty.
      results = [];
    } else {
      throw new ProviderException(
        ProviderErrorCode.BadResponse,
        `GoogleScholar: ${answer.error ?? 'SerpApi returned no organic_results.'}`,
      );
    }
    return chunksResult(
      'GoogleScholar',
      results.map((raw) => {
        const parsed = ScholarResultSchema.safeParse(raw);
        const r: z.infer<typeof ScholarResultSchema> = parsed.success ? parsed.data : {};
        return {
          title: r.title ?? '',
          url: r.link ?? '',
          content: `\n author: ${authorsOf(r)}\n Abstract: ${r.snippet || 'no abstract'}`,
        };
      }),
      { json: results },
    );
  },
};
