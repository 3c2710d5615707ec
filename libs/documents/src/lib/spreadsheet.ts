import ExcelJS from 'exceljs';
import { parse } from 'csv-parse/sync';
import type { Cell, Frame } from './frames';

/** A file that cannot be read as the spreadsheet its name says. */
export class SpreadsheetError extends Error {}

/** A date as pandas prints a Timestamp: `YYYY-MM-DD HH:MM:SS` (UTC, as Excel keeps no zone). */
const dateText = (d: Date): string | null =>
  Number.isNaN(d.getTime()) ? null : d.toISOString().slice(0, 19).replace('T', ' ');

/** An exceljs cell value as the value a reader sees: a formula's result, rich text's text. */
function cellOf(v: ExcelJS.CellValue): Cell {
  if (v === null || v === undefined) {
    return null;
  }
  if (typeof v === 'string') {
    return v === '' ? null : v;
  }
  if (typeof v === 'number' || typeof v === 'boolean') {
    return v;
  }
  if (v instanceof Date) {
    return dateText(v);
  }
  if ('richText' in v) {
    return v.richText.map((t) => t.text).join('');
  }
  if ('formula' in v || 'sharedFormula' in v) {
    return cellOf((v as { result?: ExcelJS.CellValue }).result ?? null);
  }
  if ('hyperlink' in v) {
    return cellOf((v as { text: ExcelJS.CellValue }).text);
  }
  if ('error' in v) {
    return (v as { error: string }).error;
  }
  return JSON.stringify(v);
}

/**
 * pandas' header rules: the first non-blank row names the columns; an empty name is
 * `Unnamed: <i>`, a repeated one gets `.1`, `.2`, …; blank rows are dropped.
 */
function toFrame(grid: Cell[][]): Frame {
  const rows = grid.filter((r) => r.some((c) => c !== null));
  if (!rows.length) {
    return { columns: [], rows: [] };
  }
  const width = Math.max(...rows.map((r) => r.length));
  const counts = new Map<string, number>();
  const columns = Array.from({ length: width }, (_, i) => {
    const h = rows[0][i];
    const name = h === null || h === undefined ? `Unnamed: ${i}` : String(h);
    const n = counts.get(name) ?? 0;
    counts.set(name, n + 1);
    return n ? `${name}.${n}` : name;
  });
  return {
    columns,
    rows: rows.slice(1).map((r) => Array.from({ length: width }, (_, i) => r[i] ?? null)),
  };
}

const INT = /^[+-]?\d+$/;
const FLOAT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$|^[+-]?(inf|nan)$/i;

/** `pd.read_csv`'s typing: a column of integers, of numbers, of True/False, else text. */
function typeCsvColumns(frame: Frame): Frame {
  const kinds = frame.columns.map((_, i) => {
    const values = frame.rows.map((r) => r[i]).filter((v): v is string => typeof v === 'string');
    if (values.length && values.every((v) => INT.test(v.trim()))) {
      return 'int';
    }
    if (values.length && values.every((v) => FLOAT.test(v.trim()))) {
      return 'float';
    }
    if (values.length && values.every((v) => /^(true|false)$/i.test(v.trim()))) {
      return 'bool';
    }
    return 'text';
  });
  return {
    columns: frame.columns,
    rows: frame.rows.map((r) =>
      r.map((v, i) => {
        if (typeof v !== 'string' || kinds[i] === 'text') {
          return v;
        }
        return kinds[i] === 'bool' ? /^true$/i.test(v.trim()) : Number(v);
      }),
    ),
  };
}

function readCsv(content: Buffer): Frame {
  let grid: string[][];
  try {
    grid = parse(content, { bom: true, relax_column_count: true, skip_empty_lines: true }) as string[][];
  } catch (err) {
    throw new SpreadsheetError(`not a readable CSV file: ${(err as Error).message}`);
  }
  return typeCsvColumns(toFrame(grid.map((r) => r.map((v) => (v === '' ? null : v)))));
}

/**
 * The sheets of an .xlsx or .csv file (by its name's extension) as pandas reads them: a CSV is one
 * sheet `Sheet1`; of a workbook, `all` sheets, the `first`, or the named ones (comma-separated;
 * names it lacks are left out).
 */
export async function readSpreadsheet(
  content: Buffer,
  filename: string,
  sheetSelection = 'all',
): Promise<Record<string, Frame>> {
  if (filename.toLowerCase().endsWith('.csv')) {
    return { Sheet1: readCsv(content) };
  }
  const book = new ExcelJS.Workbook();
  try {
    await book.xlsx.load(content as unknown as ArrayBuffer);
  } catch (err) {
    throw new SpreadsheetError(`not a readable .xlsx workbook: ${(err as Error).message}`);
  }
  const names = book.worksheets.map((w) => w.name);
  const chosen =
    sheetSelection === 'all'
      ? names
      : sheetSelection === 'first'
        ? names.slice(0, 1)
        : sheetSelection
            .split(',')
            .map((s) => s.trim())
            .filter((s) => names.includes(s));
  const out: Record<string, Frame> = {};
  for (const name of chosen) {
    const sheet = book.getWorksheet(name);
    const grid: Cell[][] = [];
    sheet?.eachRow({ includeEmpty: true }, (row, n) => {
      const values = row.values as ExcelJS.CellValue[];
      grid[n - 1] = values.slice(1).map(cellOf);
    });
    out[name] = toFrame(Array.from(grid, (r) => r ?? []));
  }
  return out;
}

/** Excel's sheet name rules: at most 31 characters, none of `/ \ * ? : [ ]`. */
export const sheetName = (name: string): string => name.slice(0, 31).replace(/[/\\*?:[\]]/g, '_') || 'Sheet';

/** An .xlsx workbook with one sheet per frame, a header row and the rows (no index column). */
export async function writeXlsx(sheets: Record<string, Frame>): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  const used = new Set<string>();
  for (const [name, frame] of Object.entries(sheets)) {
    let safe = sheetName(name);
    for (let n = 1; used.has(safe.toLowerCase()); n++) {
      safe = `${sheetName(name).slice(0, 27)} (${n})`;
    }
    used.add(safe.toLowerCase());
    const sheet = book.addWorksheet(safe);
    sheet.addRow(frame.columns);
    for (const row of frame.rows) {
      sheet.addRow(row.map((c) => c ?? null));
    }
  }
  return Buffer.from(await book.xlsx.writeBuffer());
}

const csvField = (c: Cell): string => {
  const s = c === null ? '' : typeof c === 'boolean' ? (c ? 'True' : 'False') : String(c);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/** `df.to_csv(index=False)`: a header line and the rows, quoted where needed, `\n` line ends. */
export function writeCsv(frame: Frame): Buffer {
  const lines = [frame.columns.map(csvField), ...frame.rows.map((r) => r.map(csvField))];
  return Buffer.from(lines.map((l) => `${l.join(',')}\n`).join(''), 'utf8');
}
