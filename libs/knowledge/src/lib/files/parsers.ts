import { extname } from 'node:path';
import { parse as parseCsvText } from 'csv-parse/sync';
import pdfParse from 'pdf-parse/lib/pdf-parse.js';

/** Where a parsed file goes in `preprocessed_files`. */
export type Bucket = 'documents' | 'tables' | 'other_files';
export type FileKind = 'txt' | 'md' | 'csv' | 'json' | 'pdf' | 'other';

export interface Parsed {
  bucket: Bucket;
  value: Record<string, unknown>;
}

/** Rows kept of a table (csv, or json array of objects); `row_count` tells how many there were. */
export const MAX_TABLE_ROWS = 1000;
/** Characters of text kept of a document (the state travels in NATS messages). */
export const MAX_TEXT_CHARS = 200_000;

/** A file's content is not what its type says (bad JSON, a broken PDF, …). */
export class ParseError extends Error {}

const BY_MIME: Record<string, FileKind> = {
  'text/plain': 'txt',
  'text/markdown': 'md',
  'text/x-markdown': 'md',
  'text/csv': 'csv',
  'application/csv': 'csv',
  'application/json': 'json',
  'text/json': 'json',
  'application/pdf': 'pdf',
};
const BY_EXTENSION: Record<string, FileKind> = {
  '.txt': 'txt',
  '.text': 'txt',
  '.md': 'md',
  '.markdown': 'md',
  '.csv': 'csv',
  '.json': 'json',
  '.pdf': 'pdf',
};

/** The parser for a file: its MIME type (parameters ignored) first, then its name's extension. */
export function fileKind(name: string, type: string): FileKind {
  const mime = type.split(';')[0].trim().toLowerCase();
  if (Object.hasOwn(BY_MIME, mime)) {
    return BY_MIME[mime];
  }
  const ext = extname(name).toLowerCase();
  return Object.hasOwn(BY_EXTENSION, ext) ? BY_EXTENSION[ext] : 'other';
}

export async function parseFile(kind: FileKind, data: Buffer, type: string): Promise<Parsed> {
  switch (kind) {
    case 'txt':
    case 'md':
      return { bucket: 'documents', value: documentOf(decodeUtf8(data), kind) };
    case 'csv':
      return { bucket: 'tables', value: parseCsv(decodeUtf8(data)) };
    case 'json':
      return parseJson(decodeUtf8(data));
    case 'pdf':
      return { bucket: 'documents', value: await parsePdf(data) };
    default:
      return { bucket: 'other_files', value: { type, bytes: data.length } };
  }
}

function decodeUtf8(data: Buffer): string {
  // TextDecoder drops a leading BOM; invalid sequences become U+FFFD.
  return new TextDecoder('utf-8').decode(data);
}

function documentOf(text: string, type: string): Record<string, unknown> {
  const doc: Record<string, unknown> = { text: text.slice(0, MAX_TEXT_CHARS), chars: text.length, type };
  if (text.length > MAX_TEXT_CHARS) {
    doc['truncated'] = true;
  }
  return doc;
}

export function parseCsv(text: string): Record<string, unknown> {
  let records: string[][];
  try {
    records = parseCsvText(text, { skip_empty_lines: true, relax_column_count: true }) as string[][];
  } catch (err) {
    throw new ParseError(`invalid CSV: ${(err as Error).message}`);
  }
  const [columns = [], ...rows] = records;
  return {
    columns,
    rows: rows.slice(0, MAX_TABLE_ROWS),
    row_count: rows.length,
    truncated: rows.length > MAX_TABLE_ROWS,
  };
}

export function parseJson(text: string): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ParseError(`invalid JSON: ${(err as Error).message}`);
  }
  if (Array.isArray(value) && value.length > 0 && value.every(isPlainObject)) {
    const columns = [...new Set(value.flatMap((row) => Object.keys(row)))];
    const rows = value.slice(0, MAX_TABLE_ROWS).map((row) => columns.map((c) => row[c] ?? null));
    return {
      bucket: 'tables',
      value: { columns, rows, row_count: value.length, truncated: value.length > MAX_TABLE_ROWS },
    };
  }
  return { bucket: 'documents', value: documentOf(JSON.stringify(value, null, 2), 'json') };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export async function parsePdf(data: Buffer): Promise<Record<string, unknown>> {
  let parsed: Awaited<ReturnType<typeof pdfParse>>;
  try {
    // A plain copy: pdf.js 1.x misreads Node Buffers that are views into a shared pool.
    parsed = await pdfParse(new Uint8Array(data));
  } catch (err) {
    throw new ParseError(`invalid PDF: ${(err as Error).message || 'unreadable'}`);
  }
  return { ...documentOf(parsed.text.trim(), 'pdf'), pages: parsed.numpages };
}

/**
 * The text a parsed file contributes to a knowledge collection: a document's text; a table as one
 * line per row (`column: value; …`, so each row stays findable by its values); undefined for a
 * file of a type no parser reads.
 */
export function parsedText(parsed: Parsed): string | undefined {
  if (parsed.bucket === 'documents') {
    return String(parsed.value['text'] ?? '');
  }
  if (parsed.bucket === 'tables') {
    const columns = (parsed.value['columns'] as unknown[]) ?? [];
    const rows = (parsed.value['rows'] as unknown[][]) ?? [];
    return rows
      .map((row) =>
        row
          .map(
            (cell, i) => `${String(columns[i] ?? `column ${i + 1}`)}: ${cell === null ? '' : String(cell)}`,
          )
          .join('; '),
      )
      .join('\n');
  }
  return undefined;
}
