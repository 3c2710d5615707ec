import { JSDOM, VirtualConsole } from 'jsdom';
import { type WebToolSpec, chunksResult, emptyResult, getText, positiveInt, queryTool } from './web-tool';

// Baidu has no search API: upstream reads its result page (`/s?wd=…&rn=…`), each result a
// `.result.c-container` with the title link in `h3 a` and the abstract in `.c-abstract`.

const text = (el: Element | null | undefined): string => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();

/** RAGFlow agent/component/baidu.py (before 0.20): the top_n results of a Baidu search. */
export const BAIDU: WebToolSpec = {
  component: 'Baidu',
  // Upstream is an old-style component without a meta: the name and texts are ours.
  functionName: 'baidu_search',
  envName: 'BAIDU',
  defaultBaseUrl: 'https://www.baidu.com',
  description:
    'Baidu is the largest search engine in China. It searches web pages from baidu.com and returns the top results with their titles, links and abstracts. It is best for queries in Chinese.',
  ...queryTool(
    'The search keywords to execute with Baidu. The keywords should be the most important words/terms(includes synonyms) from the original request.',
  ),
  defaults: { top_n: 10 },
  checks: { positiveInt: ['top_n'] },
  async call(ctx, args) {
    const query = String(args['query'] ?? '');
    if (!query) {
      return emptyResult('Baidu');
    }
    const topN = positiveInt(ctx.params, 'top_n', 'Baidu');
    const html = await getText(ctx, 'Baidu', `${ctx.baseUrl}/s?wd=${encodeURIComponent(query)}&rn=${topN}`, {
      // A browser's headers, as upstream sends them: Baidu answers others with a check page.
      headers: {
        'User-Agent':
          'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/91.0.4472.124 Safari/537.36',
        Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,image/webp,*/*;q=0.8',
        'Accept-Language': 'zh-CN,zh;q=0.9,en;q=0.8',
      },
    });
    const dom = new JSDOM(html, { url: `${ctx.baseUrl}/s`, virtualConsole: new VirtualConsole() });
    try {
      const results = [...dom.window.document.querySelectorAll('.result.c-container')].flatMap((item) => {
        const link = item.querySelector('h3 a');
        if (!link) {
          return [];
        }
        const title = text(link);
        // Today's pages put the abstract in a `content-right_…` span instead of `.c-abstract`.
        const abstract = text(
          item.querySelector('.c-abstract') ?? item.querySelector('[class*="content-right_"]'),
        );
        return [{ title, url: link.getAttribute('href') ?? '', content: abstract || title }];
      });
      return chunksResult('Baidu', results.slice(0, topN));
    } finally {
      dom.window.close();
    }
  },
};
