import { z } from 'zod';
import { ProviderErrorCode, ProviderException } from '../provider.exception';
import { type WebToolSpec, chunksResult, emptyResult, getJson, positiveInt, shapeOf } from './web-tool';

// A related topic is a result (`Text`, `FirstURL`) or a named group of them (`Name`, `Topics`).
const TopicSchema = z
  .object({
    Text: z.string().optional(),
    FirstURL: z.string().optional(),
    Name: z.string().optional(),
    Topics: z
      .array(z.object({ Text: z.string().optional(), FirstURL: z.string().optional() }).passthrough())
      .optional(),
  })
  .passthrough();

// The Instant Answer API's answer (`format=json`).
const AnswerSchema = z
  .object({
    Heading: z.string().optional(),
    AbstractText: z.string().optional(),
    AbstractURL: z.string().optional(),
    RelatedTopics: z.array(TopicSchema),
  })
  .passthrough();

/** A topic's title: the last part of its DuckDuckGo URL (`https://duckduckgo.com/Apple_Inc.` is "Apple Inc."). */
function titleOf(firstUrl: string): string {
  const last = firstUrl.split('/').filter(Boolean).at(-1) ?? '';
  try {
    return decodeURIComponent(last).replace(/_/g, ' ');
  } catch {
    return last.replace(/_/g, ' ');
  }
}

/**
 * RAGFlow agent/tools/duckduckgo.py: DuckDuckGo's results for the query, top_n of them. Upstream
 * scrapes DuckDuckGo's result pages with the `duckduckgo_search` package, which has no stable
 * form and is rate-limited from servers; here the query goes to DuckDuckGo's Instant Answer API:
 * its abstract (Heading, AbstractText, AbstractURL), then its related topics, groups flattened.
 * `json` keeps the package's shape (`title`, `href`, `body`). Both channels ("text" or "news",
 * the model's "general" or "news") use the same API.
 */
export const DUCKDUCKGO: WebToolSpec = {
  component: 'DuckDuckGo',
  functionName: 'duckduckgo_search',
  envName: 'DUCKDUCKGO',
  defaultBaseUrl: 'https://api.duckduckgo.com',
  description:
    'DuckDuckGo is a search engine focused on privacy. It offers search capabilities for web pages, images, and provides translation services. DuckDuckGo also features a private AI chat interface, providing users with an AI assistant that prioritizes data protection.',
  parameters: {
    type: 'object',
    properties: {
      query: {
        type: 'string',
        description:
          'The search keywords to execute with DuckDuckGo. The keywords should be the most important words/terms(includes synonyms) from the original request.',
      },
      channel: {
        type: 'string',
        description:
          'default:general. The category of the search. `news` is useful for retrieving real-time updates, particularly about politics, sports, and major current events covered by mainstream media sources. `general` is for broader, more general-purpose searches that may include a wide range of sources.',
        enum: ['general', 'news'],
      },
    },
    required: ['query'],
  },
  inputs: { query: '{sys.query}', channel: 'general' },
  defaults: { top_n: 10, channel: 'text' },
  checks: { positiveInt: ['top_n'], oneOf: { channel: ['text', 'news'] } },
  async call(ctx, args) {
    const query = String(args['query'] ?? '');
    if (!query) {
      return emptyResult('DuckDuckGo');
    }
    const topN = positiveInt(ctx.params, 'top_n', 'DuckDuckGo');
    if (!['text', 'news'].includes(String(ctx.params['channel']))) {
      throw new ProviderException(
        ProviderErrorCode.InvalidInput,
        'DuckDuckGo: channel must be "text" or "news"',
      );
    }
    const channel = args['channel'];
    if (channel !== undefined && channel !== null && channel !== '') {
      if (!['general', 'text', 'news'].includes(String(channel))) {
        throw new ProviderException(
          ProviderErrorCode.InvalidInput,
          'DuckDuckGo: channel must be "general" or "news"',
        );
      }
    }
    const url = new URL(`${ctx.baseUrl}/`);
    url.search = new URLSearchParams({
      q: query,
      format: 'json',
      no_html: '1',
      skip_disambig: '1',
    }).toString();
    const body = shapeOf(
      AnswerSchema,
      await getJson(ctx, 'DuckDuckGo', url.toString()),
      'DuckDuckGo answered without RelatedTopics',
    );
    const a = body;
    const found: { title: string; href: string; body: string }[] = [];
    if (a.AbstractText) {
      found.push({ title: a.Heading ?? '', href: a.AbstractURL ?? '', body: a.AbstractText });
    }
    for (const topic of a.RelatedTopics.flatMap((t) => (t.Topics ? t.Topics : [t]))) {
      if (topic.Text) {
        const href = topic.FirstURL ?? '';
        found.push({ title: titleOf(href), href, body: topic.Text });
      }
    }
    const results = found.slice(0, topN);
    return chunksResult(
      'DuckDuckGo',
      results.map((r) => ({ title: r.title, url: r.href, content: r.body })),
      { json: results },
    );
  },
};
