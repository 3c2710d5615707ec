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

// GitHub's repository search (REST API): `items` on success; a refusal with a 2xx status would
// carry only a `message`.
const SearchSchema = z
  .object({
    message: z.string().optional(),
    items: z
      .array(
        z
          .object({
            name: z.string(),
            html_url: z.string(),
            description: z.string().nullable().optional(),
            watchers: z.number().optional(),
          })
          .passthrough(),
      )
      .optional(),
  })
  .passthrough();

/**
 * RAGFlow agent/tools/github.py: the top_n repositories matching the query, most stars first. The
 * tenant's `github` key, when it has one, is sent as a token (more requests an hour); without one
 * the search runs unauthenticated, as upstream.
 */
export const GITHUB: WebToolSpec = {
  component: 'GitHub',
  functionName: 'github_search',
  envName: 'GITHUB',
  defaultBaseUrl: 'https://api.github.com',
  key: { provider: 'github', required: false },
  description:
    'GitHub repository search is a feature that enables users to find specific repositories on the GitHub platform. This search functionality allows users to locate projects, codebases, and other content hosted on GitHub based on various criteria.',
  ...queryTool(
    'The search keywords to execute with GitHub. The keywords should be the most important words/terms(includes synonyms) from the original request.',
  ),
  defaults: { top_n: 10 },
  checks: { positiveInt: ['top_n'] },
  async call(ctx, args) {
    const query = String(args['query'] ?? '');
    if (!query) {
      return emptyResult('GitHub');
    }
    const topN = positiveInt(ctx.params, 'top_n', 'GitHub');
    const url = new URL(`${ctx.baseUrl}/search/repositories`);
    url.search = new URLSearchParams({
      q: query,
      sort: 'stars',
      order: 'desc',
      per_page: String(topN),
    }).toString();
    const raw = await getJson(ctx, 'GitHub', url.toString(), {
      headers: {
        Accept: 'application/vnd.github+json',
        'X-GitHub-Api-Version': '2022-11-28',
        // GitHub refuses requests without a User-Agent.
        'User-Agent': 'switchyard',
        ...(ctx.apiKey ? { Authorization: `Bearer ${ctx.apiKey}` } : {}),
      },
    });
    const body = shapeOf(SearchSchema, raw, 'GitHub answered without an items list');
    if (!body.items) {
      throw new ProviderException(
        ProviderErrorCode.BadResponse,
        body.message ? `GitHub: ${body.message}` : 'GitHub answered without an items list',
      );
    }
    const items = body.items;
    return chunksResult(
      'GitHub',
      items.map((r) => ({
        title: r.name,
        url: r.html_url,
        // As upstream's `str(description)`: a repository without one reads "None".
        content: `${r.description ?? 'None'}\n stars:${r.watchers ?? 0}`,
      })),
      { json: items },
    );
  },
};
