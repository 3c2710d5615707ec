import { z } from 'zod';
import type { GuardedFetch } from '@switchyard/net-guard';
import { formalizedContent } from './kb-prompt';
import { parseParams, requestJson } from './provider-http';
import { ProviderErrorCode, ProviderException } from './provider.exception';

/** TavilySearch's params (RAGFlow agent/tools/tavily.py `TavilySearchParam`, with its defaults). */
export const TavilySearchParamsSchema = z.object({
  query: z.string(),
  topic: z.enum(['general', 'news']).default('general'),
  search_depth: z.enum(['basic', 'advanced']).default('basic'),
  max_results: z.number().int().min(1).max(20).default(6),
  days: z.number().int().min(1).default(14),
  include_answer: z.boolean().default(false),
  include_image_descriptions: z.boolean().default(false),
  include_domains: z.array(z.string()).default([]),
  exclude_domains: z.array(z.string()).default([]),
});
export type TavilySearchParams = z.input<typeof TavilySearchParamsSchema>;

const TavilyResultSchema = z.object({
  title: z.string().default(''),
  url: z.string().default(''),
  content: z.string().nullish(),
  raw_content: z.string().nullish(),
  score: z.number().nullish(),
});
const TavilyResponseSchema = z.object({ results: z.array(TavilyResultSchema.passthrough()) }).passthrough();
export type TavilyResult = z.infer<typeof TavilyResultSchema>;

export interface TavilySearchOutput {
  /** The results as RAGFlow renders them for a prompt. */
  formalized_content: string;
  /** The provider's results as they came. */
  json: TavilyResult[];
}

/** The model's view of the tool (RAGFlow's `tavily_search` meta). */
export const TAVILY_TOOL_DESCRIPTION = `Tavily is a search engine optimized for LLMs, aimed at efficient, quick and persistent search results.
When searching:
   - Start with specific query which should focus on just a single aspect.
   - Number of keywords in query should be less than 5.
   - Broaden search terms if needed
   - Cross-reference information from multiple sources`;

export const TAVILY_TOOL_PARAMETERS: Record<string, unknown> = {
  type: 'object',
  properties: {
    query: {
      type: 'string',
      description:
        'The search keywords to execute with Tavily. The keywords should be the most important words/terms(includes synonyms) from the original request.',
    },
    topic: {
      type: 'string',
      description:
        'default:general. The category of the search.news is useful for retrieving real-time updates, particularly about politics, sports, and major current events covered by mainstream media sources. general is for broader, more general-purpose searches that may include a wide range of sources.',
      enum: ['general', 'news'],
    },
    include_domains: {
      type: 'array',
      description: 'default:[]. A list of domains only from which the search results can be included.',
      items: { type: 'string', description: 'Domain name that must be included, e.g. www.yahoo.com' },
    },
    exclude_domains: {
      type: 'array',
      description: 'default:[]. A list of domains from which the search results can not be included',
      items: { type: 'string', description: 'Domain name that must be excluded, e.g. www.yahoo.com' },
    },
  },
  required: ['query'],
};

/** Tavily's search API (POST /search, the key as a bearer token). */
export class TavilyClient {
  constructor(
    private readonly baseUrl: string,
    private readonly fetcher: GuardedFetch,
  ) {}

  async search(
    params: TavilySearchParams,
    apiKey: string | undefined,
    signal?: AbortSignal,
  ): Promise<TavilySearchOutput> {
    const p = parseParams(TavilySearchParamsSchema, params, 'Tavily');
    if (!p.query) {
      // RAGFlow answers an empty query with empty content, without a call.
      return { formalized_content: '', json: [] };
    }
    if (!apiKey) {
      throw new ProviderException(
        ProviderErrorCode.NoKey,
        'Tavily: the tenant has no Tavily API key (set one with PUT /v1/admin/tenants/:id/provider-keys/tavily)',
      );
    }
    const body = await requestJson(this.fetcher, 'Tavily', `${this.baseUrl}/search`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${apiKey}` },
      // RAGFlow always turns images and raw content off.
      body: JSON.stringify({ ...p, include_images: false, include_raw_content: false }),
      ...(signal ? { signal } : {}),
    });
    const parsed = TavilyResponseSchema.safeParse(body);
    if (!parsed.success) {
      throw new ProviderException(ProviderErrorCode.BadResponse, 'Tavily answered without a results list');
    }
    const results = parsed.data.results;
    return {
      formalized_content: formalizedContent(
        results.map((r) => ({ title: r.title, url: r.url, content: r.raw_content || r.content || '' })),
      ),
      json: results,
    };
  }
}
