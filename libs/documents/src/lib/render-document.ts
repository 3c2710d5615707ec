import PDFDocument from 'pdfkit';
import {
  AlignmentType,
  Document,
  Footer,
  Header,
  HeadingLevel,
  Packer,
  PageNumber,
  Paragraph,
  Table,
  TableCell,
  TableRow,
  TextRun,
  WidthType,
} from 'docx';
import { type Block, markdown, markdownBlocks, plainText } from './markdown-blocks';

export const DOCUMENT_FORMATS = ['pdf', 'docx', 'txt', 'markdown', 'html'] as const;
export type DocumentFormat = (typeof DOCUMENT_FORMATS)[number];

export interface DocumentOptions {
  /** Body text size in points (≥ 12); headings are 6, 4 and 2 points larger. */
  fontSize: number;
  headerText?: string;
  footerText?: string;
  watermarkText?: string;
  addPageNumbers: boolean;
  /** `Generated: …`, in the body of text formats and the page footer of PDF and DOCX. */
  timestamp?: string;
  /** A TrueType/OpenType font for PDF text beyond Latin-1 (CJK, Cyrillic, …). */
  pdfFontPath?: string;
}

export interface RenderedDocument {
  content: Buffer;
  mimeType: string;
  extension: string;
}

/** A document that cannot be made (e.g. PDF text its font cannot draw). */
export class DocumentError extends Error {}

const MIME: Record<DocumentFormat, [string, string]> = {
  pdf: ['application/pdf', 'pdf'],
  docx: ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'docx'],
  txt: ['text/plain', 'txt'],
  markdown: ['text/markdown', 'md'],
  html: ['text/html', 'html'],
};

/**
 * A markdown text as a document of the given format (RAGFlow's DocGenerator formats): txt, markdown
 * and html carry the timestamp as the body's first line; pdf and docx draw headings, paragraphs,
 * lists, code, quotes and tables, with header, footer, timestamp, page numbers and watermark on
 * every page.
 */
export async function renderDocument(
  source: string,
  format: DocumentFormat,
  opts: DocumentOptions,
): Promise<RenderedDocument> {
  const [mimeType, extension] = MIME[format];
  const withStamp = opts.timestamp ? `${opts.timestamp}\n\n${source}` : source;
  let content: Buffer;
  switch (format) {
    case 'txt':
      content = Buffer.from(plainText(markdownBlocks(withStamp)), 'utf8');
      break;
    case 'markdown':
      content = Buffer.from(withStamp.endsWith('\n') ? withStamp : `${withStamp}\n`, 'utf8');
      break;
    case 'html':
      content = Buffer.from(markdown.render(withStamp), 'utf8');
      break;
    case 'pdf':
      content = await pdf(markdownBlocks(source), opts);
      break;
    case 'docx':
      content = await docx(markdownBlocks(source), opts);
      break;
  }
  return { content, mimeType, extension };
}

// PDF's standard fonts draw WinAnsi (Latin-1 and a few more); other text needs an embedded font.
const BEYOND_STANDARD_FONT = /[^\t\n\r\u0020-\u00ff\u2013\u2014\u2018\u2019\u201c\u201d\u2022\u2026\u20ac]/u;

function pdf(blocks: Block[], opts: DocumentOptions): Promise<Buffer> {
  const all = [opts.headerText, opts.footerText, opts.watermarkText, ...blocks.map(blockText)].join('\n');
  if (!opts.pdfFontPath && BEYOND_STANDARD_FONT.test(all)) {
    const ch = BEYOND_STANDARD_FONT.exec(all)?.[0] ?? '';
    throw new DocumentError(
      `the text has characters PDF's standard fonts cannot draw (e.g. "${ch}"): set SWITCHYARD_DOCS_PDF_FONT ` +
        'to a TrueType/OpenType font file that has them (e.g. Noto Sans CJK for Chinese)',
    );
  }
  const doc = new PDFDocument({ size: 'A4', margin: 72, bufferPages: true });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const regular = opts.pdfFontPath ? 'body' : 'Helvetica';
  const bold = opts.pdfFontPath ? 'body' : 'Helvetica-Bold';
  const mono = opts.pdfFontPath ? 'body' : 'Courier';
  if (opts.pdfFontPath) {
    doc.registerFont('body', opts.pdfFontPath);
  }
  const size = opts.fontSize;
  const width = doc.page.width - 144;
  for (const b of blocks) {
    switch (b.kind) {
      case 'heading':
        doc
          .font(bold)
          .fontSize(b.level === 1 ? size + 6 : b.level === 2 ? size + 4 : size + 2)
          .text(b.text, { width });
        break;
      case 'paragraph':
        doc.font(regular).fontSize(size).text(b.text, { width });
        break;
      case 'quote':
        doc
          .font(regular)
          .fontSize(size)
          .text(b.text, doc.page.margins.left + 24, undefined, { width: width - 24 });
        doc.x = doc.page.margins.left;
        break;
      case 'code':
        doc
          .font(mono)
          .fontSize(size - 2)
          .text(b.text, { width });
        break;
      case 'list':
        for (const item of b.items) {
          const indent = 18 * (item.depth + 1);
          doc
            .font(regular)
            .fontSize(size)
            .text(
              `${item.marker === '-' ? '•' : item.marker} ${item.text}`,
              doc.page.margins.left + indent,
              undefined,
              {
                width: width - indent,
              },
            );
        }
        doc.x = doc.page.margins.left;
        break;
      case 'table': {
        const cols = Math.max(b.header.length, 1);
        const colWidth = width / cols;
        for (const [i, r] of [b.header, ...b.rows].entries()) {
          const y = doc.y;
          let bottom = y;
          doc.font(i === 0 ? bold : regular).fontSize(size - 1);
          for (let c = 0; c < cols; c++) {
            doc.text(r[c] ?? '', doc.page.margins.left + c * colWidth, y, { width: colWidth - 6 });
            bottom = Math.max(bottom, doc.y);
          }
          doc.x = doc.page.margins.left;
          doc.y = bottom + 2;
        }
        break;
      }
      case 'rule':
        doc
          .moveTo(doc.page.margins.left, doc.y + 4)
          .lineTo(doc.page.margins.left + width, doc.y + 4)
          .stroke();
        doc.y += 8;
        break;
    }
    doc.moveDown(0.5);
  }
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    // Drawn in the margins: without this, text below the bottom margin would open a new page.
    const margins = { ...doc.page.margins };
    doc.page.margins = { top: 0, bottom: 0, left: 0, right: 0 };
    doc.font(regular).fontSize(9).fillColor('#555555');
    if (opts.headerText) {
      doc.text(opts.headerText, 36, 30, { width: doc.page.width - 72, lineBreak: false });
    }
    const footerY = doc.page.height - 42;
    if (opts.footerText) {
      doc.text(opts.footerText, 36, footerY, { width: doc.page.width - 72, lineBreak: false });
    }
    if (opts.timestamp) {
      doc.text(opts.timestamp, 36, footerY, { width: doc.page.width - 72, align: 'right', lineBreak: false });
    }
    if (opts.addPageNumbers) {
      doc.text(`Page ${i - range.start + 1}`, 36, footerY + 12, {
        width: doc.page.width - 72,
        align: 'center',
        lineBreak: false,
      });
    }
    if (opts.watermarkText) {
      doc.save();
      doc.rotate(-45, { origin: [doc.page.width / 2, doc.page.height / 2] });
      doc
        .fontSize(48)
        .fillColor('#cccccc')
        .opacity(0.35)
        .text(opts.watermarkText, 0, doc.page.height / 2 - 24, {
          width: doc.page.width,
          align: 'center',
          lineBreak: false,
        });
      doc.restore();
    }
    doc.fillColor('#000000').opacity(1);
    doc.page.margins = margins;
  }
  doc.end();
  return done;
}

const blockText = (b: Block): string =>
  b.kind === 'list'
    ? b.items.map((i) => i.text).join('\n')
    : b.kind === 'table'
      ? [b.header, ...b.rows].map((r) => r.join(' ')).join('\n')
      : b.kind === 'rule'
        ? ''
        : b.text;

const HEADINGS = [
  HeadingLevel.HEADING_1,
  HeadingLevel.HEADING_2,
  HeadingLevel.HEADING_3,
  HeadingLevel.HEADING_4,
  HeadingLevel.HEADING_5,
  HeadingLevel.HEADING_6,
];

function docx(blocks: Block[], opts: DocumentOptions): Promise<Buffer> {
  const half = (pt: number) => pt * 2;
  const size = opts.fontSize;
  const run = (text: string, extra: { bold?: boolean; font?: string; size?: number } = {}) =>
    new TextRun({ text, size: half(extra.size ?? size), bold: extra.bold, font: extra.font });
  const children: (Paragraph | Table)[] = [];
  for (const b of blocks) {
    switch (b.kind) {
      case 'heading':
        children.push(
          new Paragraph({
            heading: HEADINGS[b.level - 1],
            children: [
              run(b.text, {
                bold: true,
                size: b.level === 1 ? size + 6 : b.level === 2 ? size + 4 : size + 2,
              }),
            ],
          }),
        );
        break;
      case 'paragraph':
        children.push(new Paragraph({ children: [run(b.text)] }));
        break;
      case 'quote':
        children.push(new Paragraph({ indent: { left: 720 }, children: [run(b.text)] }));
        break;
      case 'code':
        children.push(
          ...b.text
            .split('\n')
            .map((l) => new Paragraph({ children: [run(l, { font: 'Courier New', size: size - 2 })] })),
        );
        break;
      case 'list':
        children.push(
          ...b.items.map((i) =>
            i.marker === '-'
              ? new Paragraph({ bullet: { level: Math.min(i.depth, 8) }, children: [run(i.text)] })
              : new Paragraph({
                  indent: { left: 360 * (i.depth + 1) },
                  children: [run(`${i.marker} ${i.text}`)],
                }),
          ),
        );
        break;
      case 'table':
        children.push(
          new Table({
            width: { size: 100, type: WidthType.PERCENTAGE },
            rows: [b.header, ...b.rows].map(
              (r, ri) =>
                new TableRow({
                  children: b.header.map(
                    (_, c) =>
                      new TableCell({
                        children: [new Paragraph({ children: [run(r[c] ?? '', { bold: ri === 0 })] })],
                      }),
                  ),
                }),
            ),
          }),
        );
        break;
      case 'rule':
        children.push(
          new Paragraph({ border: { bottom: { style: 'single', size: 6, color: '999999', space: 1 } } }),
        );
        break;
    }
  }
  const small = (text: string) => new TextRun({ text, size: 18 });
  const header = [
    ...(opts.headerText ? [new Paragraph({ children: [small(opts.headerText)] })] : []),
    ...(opts.watermarkText
      ? [
          new Paragraph({
            alignment: AlignmentType.CENTER,
            children: [new TextRun({ text: opts.watermarkText, size: 72, color: 'D9D9D9', bold: true })],
          }),
        ]
      : []),
  ];
  const footerRuns: TextRun[] = [
    ...(opts.footerText ? [small(opts.footerText)] : []),
    ...(opts.timestamp ? [small(`${opts.footerText ? '    ' : ''}${opts.timestamp}`)] : []),
    ...(opts.addPageNumbers ? [new TextRun({ children: ['    Page ', PageNumber.CURRENT], size: 18 })] : []),
  ];
  const doc = new Document({
    sections: [
      {
        headers: header.length ? { default: new Header({ children: header }) } : undefined,
        footers: footerRuns.length
          ? { default: new Footer({ children: [new Paragraph({ children: footerRuns })] }) }
          : undefined,
        children: children.length ? children : [new Paragraph({ children: [] })],
      },
    ],
  });
  return Packer.toBuffer(doc);
}
