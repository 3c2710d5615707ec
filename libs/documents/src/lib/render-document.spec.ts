import JSZip from 'jszip';
import pdfParse from 'pdf-parse/lib/pdf-parse.js';
import { DocumentError, renderDocument } from './render-document';

// A plain copy: pdf.js 1.x misreads Node Buffers that are views into a shared pool.
const pdfText = async (b: Buffer) =>
  (await pdfParse(new Uint8Array(b))) as { text: string; numpages: number };

const SOURCE = [
  '# Quarterly report',
  '',
  'Revenue **grew** by 12%.',
  '',
  '- north',
  '- south',
  '  1. inner',
  '',
  '| region | sales |',
  '|---|---|',
  '| north | 10 |',
  '',
  '```',
  'x = 1',
  '```',
].join('\n');

const OPTS = { fontSize: 12, addPageNumbers: true, timestamp: 'Generated: 2026-11-26 10:00:00' };

describe('renderDocument', () => {
  it('txt: the timestamp first, then the text without markup', async () => {
    const doc = await renderDocument(SOURCE, 'txt', OPTS);
    expect(doc.mimeType).toBe('text/plain');
    expect(doc.extension).toBe('txt');
    expect(doc.content.toString()).toBe(
      [
        'Generated: 2026-11-26 10:00:00',
        '',
        'Quarterly report',
        '',
        'Revenue grew by 12%.',
        '',
        '-   north',
        '-   south',
        '    1.  inner',
        '',
        'region  sales',
        '------  -----',
        'north   10',
        '',
        '    x = 1',
        '',
      ].join('\n'),
    );
  });

  it('markdown and html: the source (with the timestamp line) as markdown, and rendered', async () => {
    const md = await renderDocument('# T\n\nbody', 'markdown', { ...OPTS, timestamp: undefined });
    expect(md.content.toString()).toBe('# T\n\nbody\n');
    expect(md.mimeType).toBe('text/markdown');
    expect(md.extension).toBe('md');
    const html = await renderDocument('# T\n\n<script>x</script> *b*', 'html', OPTS);
    expect(html.content.toString()).toBe(
      '<p>Generated: 2026-11-26 10:00:00</p>\n<h1>T</h1>\n<p>&lt;script&gt;x&lt;/script&gt; <em>b</em></p>\n',
    );
  });

  it('pdf: a PDF whose text has the content, the header, footer, timestamp and page numbers', async () => {
    const doc = await renderDocument(SOURCE, 'pdf', {
      ...OPTS,
      headerText: 'ACME confidential',
      footerText: 'Finance team',
      watermarkText: 'DRAFT',
    });
    expect(doc.mimeType).toBe('application/pdf');
    expect(doc.content.subarray(0, 5).toString()).toBe('%PDF-');
    const { text, numpages } = await pdfText(doc.content);
    expect(numpages).toBe(1);
    for (const part of [
      'Quarterly report',
      'Revenue grew by 12%.',
      '• north',
      'north',
      'sales',
      'x = 1',
      'ACME confidential',
      'Finance team',
      'Generated: 2026-11-26 10:00:00',
      'Page 1',
      'DRAFT',
    ]) {
      expect(text).toContain(part);
    }
  });

  it('pdf: numbers every page of a long document', async () => {
    const long = Array.from({ length: 120 }, (_, i) => `Paragraph ${i}`).join('\n\n');
    const doc = await renderDocument(long, 'pdf', OPTS);
    const { text, numpages } = await pdfText(doc.content);
    expect(numpages).toBeGreaterThan(2);
    expect(text).toContain(`Page ${numpages}`);
    expect(text).toContain('Paragraph 119');
  });

  it('pdf: text the standard fonts cannot draw is refused, naming the setting, unless a font is given', async () => {
    await expect(renderDocument('上海 report', 'pdf', OPTS)).rejects.toThrow(DocumentError);
    await expect(renderDocument('上海 report', 'pdf', OPTS)).rejects.toThrow('SWITCHYARD_DOCS_PDF_FONT');
    const font = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf';
    const doc = await renderDocument('Привет report', 'pdf', { ...OPTS, pdfFontPath: font });
    expect((await pdfText(doc.content)).text).toContain('Привет report');
  });

  it('docx: a Word document with the content, header, footer and a page number field', async () => {
    const doc = await renderDocument(SOURCE, 'docx', { ...OPTS, headerText: 'ACME', footerText: 'Finance' });
    expect(doc.mimeType).toBe('application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    const zip = await JSZip.loadAsync(doc.content);
    const body = await zip.file('word/document.xml')!.async('string');
    for (const part of ['Quarterly report', 'Revenue grew by 12%.', 'north', 'inner', 'sales', 'x = 1']) {
      expect(body).toContain(part);
    }
    expect(body).toContain('w:tbl');
    expect(body).toContain('Heading1');
    const parts = Object.keys(zip.files);
    const header = await zip.file(parts.find((p) => /word\/header\d*\.xml/.test(p))!)!.async('string');
    const footer = await zip.file(parts.find((p) => /word\/footer\d*\.xml/.test(p))!)!.async('string');
    expect(header).toContain('ACME');
    expect(footer).toContain('Finance');
    expect(footer).toContain('Generated: 2026-11-26 10:00:00');
    expect(footer).toContain('PAGE');
  });
});
