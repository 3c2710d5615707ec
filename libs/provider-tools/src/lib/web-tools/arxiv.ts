import { XMLParser } from 'fast-xml-parser';
import { z } from 'zod';
import { ProviderErrorCode, ProviderException } from '../provider.exception';
import {
  type WebToolSpec,
  chunksResult,
  emptyResult,
  getText,
  positiveInt,
  queryTool,
  shapeOf,
  parsedXml,
} from './web-tool';

const SORT_BY = ['submittedDate', 'lastUpdatedDate', 'relevance'];

// The arXiv API answers an Atom feed: one <entry> per paper, its abstract as <summary> and its
// links (the PDF's is the one titled "pdf"). A failed query is an entry whose id is under
// /api/errors, its message as the summary.
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  parseAttributeValue: false,
  isArray: (name) => name === 'entry' || name === 'link' || name === 'author' || name === 'category',
});

const TextNode = z.union([z.string(), z.object({ '#text': z.string().optional() }).passthrough()]);

const FeedSchema = z
  .object({
    feed: z.union([
      z.literal(''),
      z
        .object({
          entry: z
            .array(
              z
                .object({
                  id: TextNode,
                  title: TextNode.optional(),
                  summary: TextNode.optional(),
                  link: z
                    .array(
                      z
                        .object({ '@_href': z.string().optional(), '@_title': z.string().optional() })
                        .passthrough(),
                    )
                    .optional(),
                })
                .passthrough(),
            )
            .optional(),
        })
        .passthrough(),
    ]),
  })
  .passthrough();

const text = (node: z.infer<typeof TextNode> | undefined): string =>
  (typeof node === 'string' ? node : (node?.['#text'] ?? '')).trim();

/** RAGFlow agent/tools/arxiv.py: the abstracts of the top_n papers matching the query. */
export const ARXIV: WebToolSpec = {
  component: 'ArXiv',
  functionName: 'arxiv_search',
  envName: 'ARXIV',
  defaultBaseUrl: 'https://export.arxiv.org',
  description:
    'arXiv is a free distribution service and an open-access archive for nearly 2.4 million scholarly articles in the fields of physics, mathematics, computer science, quantitative biology, quantitative finance, statistics, electrical engineering and systems science, and economics. Materials on this site are not peer-reviewed by arXiv.',
  ...queryTool(
    'The search keywords to execute with arXiv. The keywords should be the most important words/terms(includes synonyms) from the original request.',
  ),
  defaults: { top_n: 12, sort_by: 'submittedDate' },
  checks: { positiveInt: ['top_n'], oneOf: { sort_by: SORT_BY } },
  async call(ctx, args) {
    const query = String(args['query'] ?? '');
    if (!query) {
      return emptyResult('ArXiv');
    }
    const topN = positiveInt(ctx.params, 'top_n', 'ArXiv');
    const sortBy = String(ctx.params['sort_by']);
    if (!SORT_BY.includes(sortBy)) {
      throw new ProviderException(
        ProviderErrorCode.InvalidInput,
        `ArXiv: sort_by "${sortBy}" is not one of ${SORT_BY.join(', ')}`,
      );
    }
    // What the arxiv package sends: newest (or most relevant) first.
    const url = new URL(`${ctx.baseUrl}/api/query`);
    url.search = new URLSearchParams({
      search_query: query,
      id_list: '',
      sortBy,
      sortOrder: 'descending',
      start: '0',
      max_results: String(topN),
    }).toString();
    const xml = await getText(ctx, 'ArXiv', url.toString());
    const parsed = parsedXml(parser, xml, 'ArXiv');
    const body = shapeOf(FeedSchema, parsed, 'ArXiv answered without an Atom feed');
    const entries = body.feed === '' ? [] : (body.feed.entry ?? []);
    const failed = entries.find((e) => text(e.id).includes('arxiv.org/api/errors'));
    if (failed) {
      throw new ProviderException(ProviderErrorCode.BadResponse, `ArXiv: ${text(failed.summary)}`);
    }
    return chunksResult(
      'ArXiv',
      entries.slice(0, topN).map((e) => ({
        // The arxiv package's title: whitespace (the feed's line breaks) collapsed.
        title: text(e.title).replace(/\s+/g, ' '),
        url: e.link?.find((l) => l['@_title'] === 'pdf')?.['@_href'] ?? text(e.id),
        content: text(e.summary),
      })),
    );
  },
};
