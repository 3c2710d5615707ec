import { Readability } from '@mozilla/readability';
import { JSDOM, VirtualConsole } from 'jsdom';
import TurndownService from 'turndown';
import { ProviderErrorCode, ProviderException } from '../provider.exception';
import type { WebToolCall, WebToolSpec } from './web-tool';

// Upstream crawls with a browser (crawl4ai). Here the page is fetched through the address guard,
// its article found by Readability (jsdom, no scripts run) and written as Markdown by Turndown.

const EXTRACT_TYPES = ['markdown', 'html', 'content'];
const MAX_BYTES = 5 * 1024 * 1024;
const MAX_REDIRECTS = 5;

const fail = (code: ProviderErrorCode, message: string) => new ProviderException(code, `Crawler: ${message}`);

/** RAGFlow agent/tools/crawler.py: one web page as Markdown, cleaned HTML or its main text. */
export const CRAWLER: WebToolSpec = {
  component: 'Crawler',
  functionName: 'web_crawler',
  envName: 'CRAWLER',
  // The URL comes from the canvas or the model, not from a provider: no base URL is used.
  defaultBaseUrl: 'https://example.invalid',
  description:
    'This tool can be used to crawl a web page and return its content as HTML, Markdown, or the extracted main text.',
  parameters: {
    type: 'object',
    properties: {
      query: {
        type: 'string',
        description: 'The absolute URL (including the http:// or https:// scheme) of the web page to crawl.',
      },
    },
    required: ['query'],
  },
  inputs: { query: '{sys.query}' },
  // Upstream's `proxy` param is not used: a proxy would connect past the address guard.
  defaults: { extract_type: 'markdown' },
  checks: { oneOf: { extract_type: EXTRACT_TYPES } },
  async call(ctx, args) {
    const raw = String(args['query'] ?? '').trim();
    if (!raw) {
      return { outputs: { formalized_content: '' }, answer: '', summary: 'Crawler: no URL, nothing crawled' };
    }
    const extractType = String(ctx.params['extract_type']);
    if (!EXTRACT_TYPES.includes(extractType)) {
      throw fail(
        ProviderErrorCode.InvalidInput,
        `extract_type "${extractType}" is not one of ${EXTRACT_TYPES.join(', ')}`,
      );
    }
    const page = await fetchPage(ctx, httpUrl(raw));
    const text =
      page.html === undefined ? page.text : extract(page.html, page.url, page.contentType, extractType);
    return {
      outputs: { formalized_content: text },
      answer: text,
      summary: `Crawler: ${text.length} character(s) of ${extractType} from ${page.url}`,
    };
  },
};

/** An absolute http(s) URL (upstream: "URL not valid"). */
function httpUrl(value: string, base?: string): URL {
  let url: URL;
  try {
    url = new URL(value, base);
  } catch {
    throw fail(ProviderErrorCode.InvalidInput, `URL not valid: "${value}" is not an absolute http(s) URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw fail(ProviderErrorCode.InvalidInput, `URL not valid: "${value}" is not an http(s) URL`);
  }
  return url;
}

interface Page {
  url: string;
  contentType: string;
  /** The HTML page's bytes, or `text` for a plain text one. */
  html?: Buffer;
  text: string;
}

/** GET the page, following redirects one by one so the guard checks every host. */
async function fetchPage(ctx: WebToolCall, start: URL): Promise<Page> {
  let url = start;
  for (let hop = 0; ; hop++) {
    let res: Response;
    try {
      res = await ctx.fetch(url, {
        redirect: 'manual',
        headers: {
          'User-Agent':
            'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36',
          Accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5',
        },
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      });
    } catch (err) {
      if ((err as Error).name === 'AbortError' || ctx.signal?.aborted) {
        throw err;
      }
      const cause = (err as { cause?: { message?: string } }).cause?.message;
      throw fail(ProviderErrorCode.Network, `${(err as Error).message}${cause ? ` (${cause})` : ''}`);
    }
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      await res.body?.cancel();
      if (hop >= MAX_REDIRECTS) {
        throw fail(ProviderErrorCode.BadResponse, `${start.href} redirects more than ${MAX_REDIRECTS} times`);
      }
      url = httpUrl(location, url.href);
      continue;
    }
    const body = await readCapped(res, url.href);
    if (!res.ok) {
      const detail = body.toString('utf8').slice(0, 300);
      throw fail(
        res.status === 429 || res.status >= 500
          ? ProviderErrorCode.Unavailable
          : ProviderErrorCode.BadResponse,
        `${url.href} answered ${res.status}${detail ? `: ${detail}` : ''}`,
      );
    }
    const contentType = res.headers.get('content-type') ?? '';
    const mime = contentType.split(';')[0]!.trim().toLowerCase();
    if (!mime || mime === 'text/html' || mime === 'application/xhtml+xml') {
      return { url: url.href, contentType: mime ? contentType : 'text/html', html: body, text: '' };
    }
    if (mime.startsWith('text/')) {
      // A plain text page (text, Markdown, CSV) is its own content.
      return { url: url.href, contentType, text: body.toString('utf8') };
    }
    throw fail(ProviderErrorCode.BadResponse, `${url.href} is not a web page (${mime})`);
  }
}

/** The body, refused when it is larger than MAX_BYTES. */
async function readCapped(res: Response, url: string): Promise<Buffer> {
  const tooLarge = () => fail(ProviderErrorCode.BadResponse, `${url} is larger than ${MAX_BYTES} bytes`);
  if (Number(res.headers.get('content-length') ?? 0) > MAX_BYTES) {
    await res.body?.cancel();
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body?.getReader();
  for (;;) {
    const next = reader ? await reader.read() : { done: true as const, value: undefined };
    if (next.done) {
      break;
    }
    size += next.value.byteLength;
    if (size > MAX_BYTES) {
      await reader!.cancel();
      throw tooLarge();
    }
    chunks.push(next.value);
  }
  return Buffer.concat(chunks);
}

/** The page's article (or its whole body when Readability finds none) in the asked form. */
function extract(html: Buffer, url: string, contentType: string, extractType: string): string {
  // A silent console: the page's CSS and markup errors are not ours to log.
  const dom = new JSDOM(html, { url, contentType, virtualConsole: new VirtualConsole() });
  try {
    const doc = dom.window.document;
    const article = new Readability(doc.cloneNode(true) as Document).parse();
    if (extractType === 'content') {
      const text = article?.textContent ?? bodyOf(doc).textContent ?? '';
      return text
        .replace(/[ \t]+\n/g, '\n')
        .replace(/\n{3,}/g, '\n\n')
        .trim();
    }
    const content = article?.content ?? bodyOf(doc).innerHTML;
    if (extractType === 'html') {
      return content.trim();
    }
    const title = (article?.title ?? doc.title).trim();
    const markdown = new TurndownService({
      headingStyle: 'atx',
      codeBlockStyle: 'fenced',
      bulletListMarker: '-',
    }).turndown(content);
    return title && !markdown.startsWith('# ') ? `# ${title}\n\n${markdown}` : markdown;
  } finally {
    dom.window.close();
  }
}

/** The body without what is not content (scripts, styles, forms' templates). */
function bodyOf(doc: Document): HTMLElement {
  for (const el of doc.querySelectorAll('script, style, noscript, template, iframe, svg')) {
    el.remove();
  }
  return doc.body;
}
