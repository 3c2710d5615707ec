import { z } from 'zod';

/** RAGFlow's DocGenerator formats (`agent/component/docs_generator.py`). */
export const DOC_FORMATS = ['pdf', 'docx', 'txt', 'markdown', 'html'] as const;

/**
 * DocGenerator's params with RAGFlow's defaults and checks: content required, a known format,
 * a font size of at least 12.
 */
export const DocGeneratorParamsSchema = z.object({
  output_format: z.enum(DOC_FORMATS).default('pdf'),
  content: z.string().trim().min(1, 'a DocGenerator needs the content it writes'),
  filename: z.string().default(''),
  header_text: z.string().default(''),
  footer_text: z.string().default(''),
  watermark_text: z.string().default(''),
  add_page_numbers: z.boolean().default(true),
  add_timestamp: z.boolean().default(true),
  include_download_info_in_content: z.boolean().default(false),
  font_size: z.number().min(12, 'the font size must be at least 12').default(12),
});
export type DocGeneratorParams = z.infer<typeof DocGeneratorParamsSchema>;

/** ExcelProcessor's params with RAGFlow's defaults (`agent/component/excel_processor.py`). */
export const ExcelProcessorParamsSchema = z.object({
  input_files: z.array(z.string()).default([]),
  operation: z
    .string()
    .transform((s) => s.toLowerCase())
    .pipe(z.enum(['read', 'merge', 'transform', 'output']))
    .default('read'),
  sheet_selection: z.string().default('all'),
  merge_strategy: z.string().default('concat'),
  join_on: z.string().default(''),
  transform_data: z.string().default(''),
  output_format: z.enum(['xlsx', 'csv']).default('xlsx'),
  output_filename: z.string().default('output'),
});
export type ExcelProcessorParams = z.infer<typeof ExcelProcessorParamsSchema>;

/**
 * RAGFlow's `sanitize_filename`: path and control characters become spaces, runs of spaces one,
 * the name's own extension is replaced by the format's, at most 180 characters before it.
 */
export function sanitizeFilename(name: string, extension: string): string {
  let base = name
    .trim()
    // eslint-disable-next-line no-control-regex
    .replace(/[\\/\x00-\x1f?#%*:|<>"]/g, ' ')
    .replace(/\s+/g, ' ')
    .replace(/^[ .]+|[ .]+$/g, '');
  if (!base) {
    return `file.${extension}`;
  }
  const dot = base.lastIndexOf('.');
  if (dot > 0) {
    base = base.slice(0, dot);
  }
  base = base.slice(0, 180).trimEnd() || 'file';
  return `${base}.${extension}`;
}

/** What a Message shows for a made file (RAGFlow's download info): id, name, type, size, where. */
export interface DownloadInfo {
  doc_id: string;
  filename: string;
  mime_type: string;
  size: number;
  /** The gateway path that serves the file to the run's tenant. */
  url: string;
  include_download_info_in_content?: boolean;
}

const isDownloadInfo = (v: unknown): v is DownloadInfo =>
  !!v &&
  typeof v === 'object' &&
  !Array.isArray(v) &&
  ['doc_id', 'filename', 'mime_type'].every((k) => k in v);

/**
 * RAGFlow Message's `_extract_downloads`: a value (or its JSON text) that is a download info or a
 * list of them; anything else is none.
 */
export function downloadsIn(value: unknown): DownloadInfo[] {
  let v = value;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v) as unknown;
    } catch {
      return [];
    }
  }
  if (isDownloadInfo(v)) {
    return [v];
  }
  return Array.isArray(v) && v.length > 0 && v.every(isDownloadInfo) ? v : [];
}
