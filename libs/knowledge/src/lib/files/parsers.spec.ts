import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { minimalPdf } from './minimal-pdf';
import { MAX_TABLE_ROWS, ParseError, fileKind, parseFile, parsedText } from './parsers';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sy-parsers-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes a real file and reads it back, as the node does. */
function file(name: string, content: string | Buffer): Buffer {
  writeFileSync(join(dir, name), content);
  return readFileSync(join(dir, name));
}

describe('fileKind', () => {
  it.each([
    ['notes.txt', 'text/plain', 'txt'],
    ['README', 'text/markdown; charset=utf-8', 'md'],
    ['data.bin', 'text/csv', 'csv'],
    ['x.json', 'application/octet-stream', 'json'],
    ['report.PDF', '', 'pdf'],
    ['doc.markdown', 'application/octet-stream', 'md'],
    ['photo.png', 'image/png', 'other'],
    ['noext', 'application/octet-stream', 'other'],
  ])('%s (%s) → %s', (name, type, kind) => {
    expect(fileKind(name, type)).toBe(kind);
  });
});

describe('parseFile', () => {
  it.each([
    ['txt', 'notes.txt', 'hello\nworld', { text: 'hello\nworld', chars: 11, type: 'txt' }],
    ['md', 'doc.md', '# Title\n\n- item', { text: '# Title\n\n- item', chars: 15, type: 'md' }],
    ['txt', 'bom.txt', '\uFEFFwith bom', { text: 'with bom', chars: 8, type: 'txt' }],
  ] as const)('%s: %s becomes a document', async (kind, name, content, expected) => {
    expect(await parseFile(kind, file(name, content), 'text/plain')).toEqual({
      bucket: 'documents',
      value: expected,
    });
  });

  it('csv: quoted fields with commas, quotes and newlines', async () => {
    const csv = 'region,amount,note\n"North, East",120,"said ""hi"""\nSouth,80,"two\nlines"\n\n';
    expect(await parseFile('csv', file('sales.csv', csv), 'text/csv')).toEqual({
      bucket: 'tables',
      value: {
        columns: ['region', 'amount', 'note'],
        rows: [
          ['North, East', '120', 'said "hi"'],
          ['South', '80', 'two\nlines'],
        ],
        row_count: 2,
        truncated: false,
      },
    });
  });

  it(`csv: keeps the first ${MAX_TABLE_ROWS} rows and counts them all`, async () => {
    const lines = ['n', ...Array.from({ length: MAX_TABLE_ROWS + 5 }, (_, i) => String(i))];
    const { value } = await parseFile('csv', file('big.csv', lines.join('\n')), 'text/csv');
    expect(value['row_count']).toBe(MAX_TABLE_ROWS + 5);
    expect(value['truncated']).toBe(true);
    expect(value['rows']).toHaveLength(MAX_TABLE_ROWS);
  });

  it.each([
    [
      'an array of objects is a table (columns: union of keys)',
      [
        { a: 1, b: 'x' },
        { a: 2, c: true },
      ],
      {
        bucket: 'tables',
        value: {
          columns: ['a', 'b', 'c'],
          rows: [
            [1, 'x', null],
            [2, null, true],
          ],
          row_count: 2,
          truncated: false,
        },
      },
    ],
    [
      'an object is a document',
      { a: 1, nested: { b: [1, 2] } },
      {
        bucket: 'documents',
        value: { text: JSON.stringify({ a: 1, nested: { b: [1, 2] } }, null, 2), chars: 65, type: 'json' },
      },
    ],
    [
      'an array of scalars is a document',
      [1, 2],
      { bucket: 'documents', value: { text: '[\n  1,\n  2\n]', chars: 12, type: 'json' } },
    ],
  ])('json: %s', async (_label, json, expected) => {
    expect(await parseFile('json', file('data.json', JSON.stringify(json)), 'application/json')).toEqual(
      expected,
    );
  });

  it('pdf: the text of a real one-page PDF', async () => {
    const parsed = await parseFile(
      'pdf',
      file('hello.pdf', minimalPdf('Hello (PDF) world')),
      'application/pdf',
    );
    expect(parsed).toEqual({
      bucket: 'documents',
      value: { text: 'Hello (PDF) world', chars: 17, type: 'pdf', pages: 1 },
    });
  });

  it('other types: type and size only', async () => {
    expect(await parseFile('other', file('x.png', Buffer.from([1, 2, 3])), 'image/png')).toEqual({
      bucket: 'other_files',
      value: { type: 'image/png', bytes: 3 },
    });
  });

  it.each([
    ['json', 'bad.json', '{"a":', /invalid JSON/],
    ['csv', 'bad.csv', 'a,b\n"unclosed,1\n', /invalid CSV/],
    ['pdf', 'bad.pdf', 'this is not a pdf', /invalid PDF/],
  ] as const)('%s: a broken %s is a ParseError', async (kind, name, content, message) => {
    const err = await parseFile(kind, file(name, content), '').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ParseError);
    expect((err as Error).message).toMatch(message);
  });
});

describe(parsedText.name, () => {
  it('gives a document its text, a table one line per row, and nothing for an unknown type', async () => {
    expect(parsedText(await parseFile('md', Buffer.from('# Title\n\nBody'), 'text/markdown'))).toBe(
      '# Title\n\nBody',
    );
    expect(
      parsedText(await parseFile('csv', Buffer.from('city,people\nLyon,522000\nNice,\n'), 'text/csv')),
    ).toBe('city: Lyon; people: 522000\ncity: Nice; people: ');
    expect(parsedText(await parseFile('json', Buffer.from('[{"a":1},{"b":null}]'), 'application/json'))).toBe(
      'a: 1; b: \na: ; b: ',
    );
    expect(parsedText(await parseFile('other', Buffer.from('x'), 'image/png'))).toBeUndefined();
  });
});
