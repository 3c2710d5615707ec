import {
  DocGeneratorParamsSchema,
  ExcelProcessorParamsSchema,
  downloadsIn,
  sanitizeFilename,
} from './file-components';

describe('sanitizeFilename (RAGFlow sanitize_filename)', () => {
  it.each([
    ['report', 'pdf', 'report.pdf'],
    ['Q1 report.final', 'pdf', 'Q1 report.pdf'],
    ['  a/b\\c:d*e?f  ', 'docx', 'a b c d e f.docx'],
    ['...', 'txt', 'file.txt'],
    ['', 'md', 'file.md'],
    ['x'.repeat(200), 'html', `${'x'.repeat(180)}.html`],
  ])('%j as %s → %j', (name, ext, want) => {
    expect(sanitizeFilename(name, ext)).toBe(want);
  });
});

describe('downloadsIn (RAGFlow Message._extract_downloads)', () => {
  const info = {
    doc_id: 'd1',
    filename: 'a.pdf',
    mime_type: 'application/pdf',
    size: 3,
    url: '/v1/files/d1/content',
  };
  it('finds a download info as an object, its JSON text, or a list of them', () => {
    expect(downloadsIn(info)).toEqual([info]);
    expect(downloadsIn(JSON.stringify(info))).toEqual([info]);
    expect(downloadsIn([info, { ...info, doc_id: 'd2' }])).toHaveLength(2);
  });
  it('finds none in anything else', () => {
    expect(downloadsIn('plain text')).toEqual([]);
    expect(downloadsIn({ doc_id: 'd1' })).toEqual([]);
    expect(downloadsIn([info, 'x'])).toEqual([]);
    expect(downloadsIn([])).toEqual([]);
    expect(downloadsIn(null)).toEqual([]);
  });
});

describe('params', () => {
  it("DocGenerator: RAGFlow's defaults; content, format and font size checked", () => {
    expect(DocGeneratorParamsSchema.parse({ content: 'x' })).toMatchObject({
      output_format: 'pdf',
      add_page_numbers: true,
      add_timestamp: true,
      font_size: 12,
    });
    expect(DocGeneratorParamsSchema.safeParse({ content: '  ' }).success).toBe(false);
    expect(DocGeneratorParamsSchema.safeParse({ content: 'x', output_format: 'rtf' }).success).toBe(false);
    expect(DocGeneratorParamsSchema.safeParse({ content: 'x', font_size: 11 }).success).toBe(false);
  });
  it("ExcelProcessor: RAGFlow's defaults, the operation case-insensitive, formats checked", () => {
    expect(ExcelProcessorParamsSchema.parse({})).toMatchObject({
      operation: 'read',
      sheet_selection: 'all',
      merge_strategy: 'concat',
      output_format: 'xlsx',
      output_filename: 'output',
    });
    expect(ExcelProcessorParamsSchema.parse({ operation: 'MERGE' }).operation).toBe('merge');
    expect(ExcelProcessorParamsSchema.safeParse({ operation: 'pivot' }).success).toBe(false);
    expect(ExcelProcessorParamsSchema.safeParse({ output_format: 'ods' }).success).toBe(false);
  });
});
