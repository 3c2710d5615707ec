import MarkdownIt from 'markdown-it';
import { parse } from 'parse5';
import { GraphErrorCode, GraphException } from '../graph.exception';
import { pyStr, pyStrip, pyTypeName } from '../py-value';

// PuppyEngine's `AdvancedChunking` (ModularEdges/ChunkEdge/advanced_chunk.py): BeautifulSoup's
// html.parser is replaced by parse5 and markdown2 by markdown-it, both walked here as upstream
// walks its soup. Pure: no I/O.

type Json = Record<string, unknown>;

const fail = (message: string): never => {
  throw new GraphException(GraphErrorCode.ComponentFailed, message);
};

/** The sub-modes of the advanced chunking. */
export const ADVANCED_SUB_MODES = ['html', 'markdown', 'markdown_structured'] as const;

/** A parsed node: an element (with its children), a text or a comment. */
interface Node {
  kind: 'element' | 'text' | 'comment';
  /** The element's name (lowercase), else ''. */
  name: string;
  /** A text's or comment's data. */
  data: string;
  attrs: Record<string, string>;
  children: Node[];
}

/** parse5's tree node, as far as it is read here. */
interface P5Node {
  nodeName: string;
  tagName?: string;
  value?: string;
  data?: string;
  attrs?: { name: string; value: string }[];
  childNodes?: P5Node[];
  content?: P5Node;
  sourceCodeLocation?: unknown;
}

/**
 * Parses HTML into the elements, texts and comments BeautifulSoup's html.parser would keep:
 * elements parse5 implies without a tag in the source (html, head, body, tbody) are left out,
 * their children kept in their place; a template's content is its children.
 */
function parseHtml(html: string): Node[] {
  const convert = (n: P5Node): Node[] => {
    const kids = (): Node[] => (n.content ?? n).childNodes?.flatMap(convert) ?? [];
    if (n.nodeName === '#text') {
      return [{ kind: 'text', name: '', data: n.value ?? '', attrs: {}, children: [] }];
    }
    if (n.nodeName === '#comment') {
      return [{ kind: 'comment', name: '', data: n.data ?? '', attrs: {}, children: [] }];
    }
    if (n.tagName === undefined) {
      return []; // a doctype
    }
    if (!n.sourceCodeLocation) {
      return kids();
    }
    const attrs = Object.fromEntries((n.attrs ?? []).map((a) => [a.name, a.value]));
    return [{ kind: 'element', name: n.tagName, data: '', attrs, children: kids() }];
  };
  const doc = parse(html, { sourceCodeLocationInfo: true }) as unknown as P5Node;
  return doc.childNodes?.flatMap(convert) ?? [];
}

/** `find_all()`: every element under `nodes`, in document order. */
function allElements(nodes: readonly Node[]): Node[] {
  return nodes.flatMap((n) => (n.kind === 'element' ? [n, ...allElements(n.children)] : []));
}

/**
 * BeautifulSoup keeps the text of these elements in their own string classes (a script's text is a
 * `Script`, …): an element's `get_text` reads only the texts of its own class, so a `<p>` skips
 * the text of a `<script>` in it while the `<script>` reads its own.
 */
const STRING_CONTAINERS = new Set(['rt', 'rp', 'style', 'script', 'template']);

/** `get_text(strip=True)`: each text stripped, the non-empty ones joined with nothing between. */
function getText(el: Node): string {
  const own = STRING_CONTAINERS.has(el.name) ? el.name : '';
  const parts: string[] = [];
  const walk = (nodes: readonly Node[], container: string) => {
    for (const n of nodes) {
      if (n.kind === 'element') {
        walk(n.children, STRING_CONTAINERS.has(n.name) ? n.name : container);
      } else if (n.kind === 'text' && container === own) {
        const s = pyStrip(n.data);
        if (s) {
          parts.push(s);
        }
      }
    }
  };
  walk(el.children, own);
  return parts.join('');
}

/** markdown2's `markdown()`, as CommonMark (markdown-it; raw HTML passes through as upstream's). */
const md = new MarkdownIt('commonmark');

/**
 * `html_splitter` / `markdown_splitter`: for each `[name, label]` of `tags` (by default one per
 * element of the document, in order, so a name appearing twice is split twice), the text of every
 * element of that name, where it has any.
 */
function splitByTags(nodes: readonly Node[], rawTags: unknown): string[] {
  const elements = allElements(nodes);
  const tags: unknown[] =
    Array.isArray(rawTags) && rawTags.length ? rawTags : elements.map((e) => [e.name, e.name]);
  const chunks: string[] = [];
  for (const pair of tags) {
    if (!Array.isArray(pair) || pair.length !== 2) {
      return fail('each of the advanced chunking tags is a [tag, label] pair');
    }
    for (const el of elements) {
      if (el.name === pair[0]) {
        const content = getText(el);
        if (content) {
          chunks.push(content);
        }
      }
    }
  }
  return chunks;
}

type Part = Record<string, string | Record<string, string>>;

/** `_parse_paragraph`: its texts, bold, italic, links and inline code; adjacent texts merged. */
function parseParagraph(el: Node, out: Part[]) {
  const parts: Part[] = [];
  for (const part of el.children) {
    if (part.kind !== 'element') {
      // A comment is a string to BeautifulSoup too.
      if (pyStrip(part.data)) {
        parts.push({ paragraph: pyStrip(part.data) });
      }
      continue;
    }
    const content = getText(part);
    switch (part.name) {
      case 'strong':
        parts.push({ bold: content });
        break;
      case 'em':
        parts.push({ italic: content });
        break;
      case 'a':
        parts.push({ link: { text: content, href: pyStr(part.attrs['href'] ?? null) } });
        break;
      case 'code':
        parts.push({ inline_code: content });
        break;
    }
  }
  // Upstream merges a text into the one before it — which, when that one was merged itself, is
  // in no chunk: kept.
  parts.forEach((part, i) => {
    const prev = parts[i - 1];
    if (i > 0 && 'paragraph' in prev && 'paragraph' in part) {
      prev['paragraph'] = `${prev['paragraph'] as string} ${part['paragraph'] as string}`;
    } else {
      out.push(part);
    }
  });
}

/** `_load_markdown`: one part per header, paragraph piece, list item, block quote or code. */
function loadMarkdown(doc: string): Part[] {
  const parsed: Part[] = [];
  for (const el of allElements(parseHtml(md.render(doc)))) {
    const content = getText(el);
    // Upstream's test is startswith("h"): hr, and raw html/head/header/hgroup too.
    if (el.name.startsWith('h')) {
      parsed.push({ header: content });
    } else if (el.name === 'p') {
      parseParagraph(el, parsed);
    } else if (el.name === 'ul' || el.name === 'ol') {
      for (const li of allElements(el.children).filter((e) => e.name === 'li')) {
        parsed.push({ list_item: getText(li) });
      }
    } else if (el.name === 'blockquote') {
      parsed.push({ blockquote: content });
    } else if (el.name === 'pre' || el.name === 'code') {
      parsed.push({ code: content });
    }
  }
  return parsed;
}

/** `chunk_markdown`: each part as `kind: content` (a link as `link:\ntext: …\nhref: …`). */
function chunkMarkdown(doc: string): string[] {
  return loadMarkdown(doc)
    .map((part) =>
      Object.entries(part)
        .map(([tag, content]) =>
          typeof content === 'string'
            ? `${tag}: ${content}`
            : `${tag}:\n${Object.entries(content)
                .map(([k, v]) => `${k}: ${v}`)
                .join('\n')}`,
        )
        .join('\n'),
    )
    .filter((chunk) => chunk !== '');
}

/** `AdvancedChunking.chunk`: the html, markdown or markdown_structured splitter's contents. */
export function advancedChunk(sub: string, doc: unknown, extra: Json): string[] {
  if (!(ADVANCED_SUB_MODES as readonly string[]).includes(sub)) {
    return fail('Unsupported Sub Chunking Mode for Advanced Chunk');
  }
  if (typeof doc !== 'string') {
    return fail(`the advanced chunking reads text, not ${pyTypeName(doc)}`);
  }
  const tags = extra['tags'];
  switch (sub) {
    case 'html':
      return splitByTags(parseHtml(doc), tags);
    case 'markdown':
      return splitByTags(parseHtml(md.render(doc)), tags);
    default:
      return chunkMarkdown(doc);
  }
}
