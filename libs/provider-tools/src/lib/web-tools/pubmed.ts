import { XMLParser } from 'fast-xml-parser';
import { z } from 'zod';
import { ProviderErrorCode, ProviderException } from '../provider.exception';
import {
  type WebToolSpec,
  chunksResult,
  emptyResult,
  getJson,
  getText,
  positiveInt,
  queryTool,
  shapeOf,
  parsedXml,
} from './web-tool';

// NCBI's E-utilities, as Bio.Entrez calls them: esearch finds the top_n PubMed ids, efetch
// returns their records as PubMed XML. NCBI asks every caller for a tool name and an email.
const SearchSchema = z
  .object({
    error: z.string().optional(),
    esearchresult: z
      .object({ idlist: z.array(z.string()).optional(), ERROR: z.string().optional() })
      .passthrough()
      .optional(),
  })
  .passthrough();

// Text is not trimmed by the parser so that inline markup (<sup>, <sub>) keeps its spaces.
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  isArray: (name) => ['PubmedArticle', 'Author', 'ArticleId', 'AbstractText'].includes(name),
});

const ArticleSetSchema = z
  .object({
    PubmedArticleSet: z.union([
      z.string(),
      z
        .object({
          PubmedArticle: z
            .array(
              z
                .object({
                  MedlineCitation: z.object({ PMID: z.unknown(), Article: z.unknown() }).passthrough(),
                  PubmedData: z.unknown().optional(),
                })
                .passthrough(),
            )
            .optional(),
        })
        .passthrough(),
    ]),
  })
  .passthrough();

type Node = unknown;

/** The elements at a path (`Journal/Title`), going through the first of any repeated one. */
function all(node: Node, path: string): Node[] {
  let cur: Node = node;
  for (const name of path.split('/')) {
    const one: Node = Array.isArray(cur) ? cur[0] : cur;
    cur = one && typeof one === 'object' ? (one as Record<string, unknown>)[name] : undefined;
  }
  return Array.isArray(cur) ? cur : cur === undefined ? [] : [cur];
}

const find = (node: Node, path: string): Node => all(node, path)[0];

/** An element's text (without its inline children's), trimmed; '' when it has none. */
function text(node: Node): string {
  if (typeof node === 'string') {
    return node.trim();
  }
  if (node && typeof node === 'object') {
    const t = (node as Record<string, unknown>)['#text'];
    return typeof t === 'string' ? t.trim() : '';
  }
  return '';
}

/** Upstream's `_format_pubmed_content`: a reference's fields, then its abstract. */
function formatArticle(article: Node): string {
  const at = (path: string) => text(find(article, `MedlineCitation/Article/${path}`));
  const authors = all(article, 'MedlineCitation/Article/AuthorList/Author')
    .map((a) => `${text(find(a, 'ForeName'))} ${text(find(a, 'LastName'))}`.trim())
    .filter(Boolean);
  const doi = all(article, 'PubmedData/ArticleIdList/ArticleId').find(
    (id) => (id as Record<string, unknown>)?.['@_IdType'] === 'doi',
  );
  return [
    `Title: ${at('ArticleTitle') || 'No title'}`,
    `Authors: ${authors.length ? authors.join(', ') : 'Unknown Authors'}`,
    `Journal: ${at('Journal/Title') || 'Unknown Journal'}`,
    `Volume: ${at('Journal/JournalIssue/Volume') || '-'}`,
    `Issue: ${at('Journal/JournalIssue/Issue') || '-'}`,
    `Pages: ${at('Pagination/MedlinePgn') || '-'}`,
    `DOI: ${text(doi) || '-'}`,
    `Abstract: ${at('Abstract/AbstractText') || 'No abstract available'}`,
  ].join('\n');
}

/** RAGFlow agent/tools/pubmed.py: the references and abstracts of the top_n articles matching the query. */
export const PUBMED: WebToolSpec = {
  component: 'PubMed',
  functionName: 'pubmed_search',
  envName: 'PUBMED',
  defaultBaseUrl: 'https://eutils.ncbi.nlm.nih.gov',
  description: `
PubMed is an openly accessible, free database which includes primarily the MEDLINE database of references and abstracts on life sciences and biomedical topics.
In addition to MEDLINE, PubMed provides access to:
 - older references from the print version of Index Medicus, back to 1951 and earlier
 - references to some journals before they were indexed in Index Medicus and MEDLINE, for instance Science, BMJ, and Annals of Surgery
 - very recent entries to records for an article before it is indexed with Medical Subject Headings (MeSH) and added to MEDLINE
 - a collection of books available full-text and other subsets of NLM records[4]
 - PMC citations
 - NCBI Bookshelf
            `,
  ...queryTool(
    'The search keywords to execute with PubMed. The keywords should be the most important words/terms(includes synonyms) from the original request.',
  ),
  defaults: { top_n: 12, email: 'A.N.Other@example.com' },
  checks: { positiveInt: ['top_n'] },
  async call(ctx, args) {
    const query = String(args['query'] ?? '');
    if (!query) {
      return emptyResult('PubMed');
    }
    const topN = positiveInt(ctx.params, 'top_n', 'PubMed');
    const email = String(ctx.params['email'] ?? '');
    const caller = { tool: 'switchyard', ...(email ? { email } : {}) };

    const searchUrl = new URL(`${ctx.baseUrl}/entrez/eutils/esearch.fcgi`);
    searchUrl.search = new URLSearchParams({
      db: 'pubmed',
      term: query,
      retmax: String(topN),
      retmode: 'json',
      ...caller,
    }).toString();
    const search = shapeOf(
      SearchSchema,
      await getJson(ctx, 'PubMed', searchUrl.toString()),
      'PubMed answered without an esearchresult',
    );
    const failure = search.error ?? search.esearchresult?.ERROR;
    if (failure || !search.esearchresult) {
      throw new ProviderException(
        ProviderErrorCode.BadResponse,
        `PubMed: ${failure ?? 'esearch answered without an esearchresult'}`,
      );
    }
    const ids = search.esearchresult.idlist ?? [];
    if (ids.length === 0) {
      return chunksResult('PubMed', []);
    }

    const fetchUrl = new URL(`${ctx.baseUrl}/entrez/eutils/efetch.fcgi`);
    fetchUrl.search = new URLSearchParams({
      db: 'pubmed',
      id: ids.join(','),
      retmode: 'xml',
      ...caller,
    }).toString();
    // As upstream, bold and italic markup is dropped before parsing.
    const xml = (await getText(ctx, 'PubMed', fetchUrl.toString())).replace(/<(\/?)b>|<(\/?)i>/g, '');
    const parsed = parsedXml(parser, xml, 'PubMed');
    const set = shapeOf(ArticleSetSchema, parsed, 'PubMed answered without a PubmedArticleSet');
    const articles =
      typeof set.PubmedArticleSet === 'string' ? [] : (set.PubmedArticleSet.PubmedArticle ?? []);
    return chunksResult(
      'PubMed',
      articles.map((a) => ({
        title: text(find(a, 'MedlineCitation/Article/ArticleTitle')),
        url: `https://pubmed.ncbi.nlm.nih.gov/${text(find(a, 'MedlineCitation/PMID'))}`,
        content: formatArticle(a),
      })),
    );
  },
};
