import type { GraphException } from '../graph.exception';
import { runChunk } from './chunk';

// PuppyEngine's AdvancedChunking (archived/PuppyEngine/ModularEdges/ChunkEdge/advanced_chunk.py,
// with beautifulsoup4 4.12.3 and markdown2 2.5.3 pinned upstream). Neither package can be installed
// here, so the expected values are worked out by reading upstream's code on inputs where
// html.parser and parse5 build the same tree, and markdown2 and CommonMark the same HTML; the
// first cases are upstream's own `__main__` samples.
const SAMPLE_HTML = `
<html>
<head><title>Test HTML</title></head>
<body>
<h1>Header 1</h1>
<p>This is a paragraph.</p>
<h2>Header 2</h2>
<p>This is another paragraph.</p>
</body>
</html>
    `;
const SAMPLE_MARKDOWN = `
# Header 1
Hi this is Jim

## Header 2
Hi this is Joe

### Header 3
Hi this is Molly
    `;
const TWO_HEADERS = {
  tags: [
    ['h1', 'Header 1'],
    ['h2', 'Header 2'],
  ],
};

const CASES: [string, string, string, Record<string, unknown>, string[]][] = [
  [
    'html with tags: every element of each name, tag by tag',
    'html',
    SAMPLE_HTML,
    TWO_HEADERS,
    ['Header 1', 'Header 2'],
  ],
  [
    'html without tags: one split per element in document order, a repeated name split again',
    'html',
    SAMPLE_HTML,
    {},
    [
      'Test HTMLHeader 1This is a paragraph.Header 2This is another paragraph.',
      'Test HTML',
      'Test HTML',
      'Header 1This is a paragraph.Header 2This is another paragraph.',
      'Header 1',
      'This is a paragraph.',
      'This is another paragraph.',
      'Header 2',
      // the second <p> of the element list: both paragraphs again
      'This is a paragraph.',
      'This is another paragraph.',
    ],
  ],
  ['markdown with tags', 'markdown', SAMPLE_MARKDOWN, TWO_HEADERS, ['Header 1', 'Header 2']],
  [
    'markdown without tags',
    'markdown',
    SAMPLE_MARKDOWN,
    { tags: [] },
    [
      'Header 1',
      'Hi this is Jim',
      'Hi this is Joe',
      'Hi this is Molly',
      'Header 2',
      'Hi this is Jim',
      'Hi this is Joe',
      'Hi this is Molly',
      'Header 3',
      'Hi this is Jim',
      'Hi this is Joe',
      'Hi this is Molly',
    ],
  ],
  [
    'markdown_structured',
    'markdown_structured',
    SAMPLE_MARKDOWN,
    {},
    [
      'header: Header 1',
      'paragraph: Hi this is Jim',
      'header: Header 2',
      'paragraph: Hi this is Joe',
      'header: Header 3',
      'paragraph: Hi this is Molly',
    ],
  ],
  [
    'html: texts stripped and joined with nothing between, nested elements split too',
    'html',
    '<div><p>a <b>bold</b> text</p><div>inner</div></div>',
    {},
    ['aboldtextinner', 'inner', 'aboldtext', 'bold', 'aboldtextinner', 'inner'],
  ],
  [
    'html: no element parse5 implies (html, body, tbody) that html.parser would not have',
    'html',
    '<h1>T</h1><table><tr><td>a &amp; b</td></tr></table>',
    {},
    ['T', 'a & b', 'a & b', 'a & b'],
  ],
  [
    'html: the tags in their order, labels unused, empty elements skipped',
    'html',
    '<h1>Title</h1><p>one</p><p> </p><p>two</p>',
    {
      tags: [
        ['p', 'para'],
        ['h1', 'head'],
        ['h3', 'none'],
      ],
    },
    ['one', 'two', 'Title'],
  ],
  [
    "html: a script's or style's text is its own, not its parent's (bs4's string containers)",
    'html',
    '<div>x<script>var a = 1;</script><style>p {}</style></div>',
    {},
    ['x', 'var a = 1;', 'p {}'],
  ],
  [
    'markdown: a list split by item',
    'markdown',
    'Intro\n\n- one\n- two\n',
    { tags: [['li', 'item']] },
    ['one', 'two'],
  ],
  [
    'markdown_structured: paragraph pieces, list items, block quotes, code (twice: pre and code), rules as headers',
    'markdown_structured',
    'Some **bold** and *it* with [a link](http://x.io) and `code` tail\n\n- one\n- two\n\n> quoted\n\n    code block\n\n---\n',
    {},
    [
      'paragraph: Some',
      'bold: bold',
      'paragraph: and',
      'italic: it',
      'paragraph: with',
      'link:\ntext: a link\nhref: http://x.io',
      'paragraph: and',
      'inline_code: code',
      'paragraph: tail',
      // find_all reaches the <code> inside the paragraph too
      'code: code',
      'list_item: one',
      'list_item: two',
      'blockquote: quoted',
      'paragraph: quoted',
      'code: code block',
      'code: code block',
      // upstream's header test is tag.startswith("h"): <hr /> is an empty header
      'header: ',
    ],
  ],
];

describe('the advanced chunking (PuppyEngine AdvancedChunking)', () => {
  it.each(CASES)('%s', (_name, sub, doc, extra, expected) => {
    expect(runChunk('advanced', sub, doc, extra)).toEqual(expected);
  });

  it('matches its sub-mode case-insensitively and reads text only', () => {
    expect(runChunk('Advanced', 'HTML', '<p>x</p>')).toEqual(['x']);
    expect(() => runChunk('advanced', 'html', { a: 1 })).toThrow(
      'the advanced chunking reads text, not dict',
    );
    try {
      runChunk('advanced', 'pdf', 'x');
      throw new Error('no failure');
    } catch (err) {
      expect((err as GraphException).message).toContain('Unsupported Sub Chunking Mode for Advanced Chunk');
    }
  });

  it('has nothing to split in a text without elements', () => {
    expect(runChunk('advanced', 'html', 'plain text')).toEqual([]);
    expect(runChunk('advanced', 'markdown_structured', '')).toEqual([]);
  });
});
