import { Inject, Injectable } from '@nestjs/common';
import {
  type Frame,
  SpreadsheetError,
  concatFrames,
  frameFromRecords,
  frameMarkdown,
  outerJoin,
  readSpreadsheet,
  recordsOf,
  writeCsv,
  writeXlsx,
} from '@switchyard/documents';
import {
  type ExcelProcessorParams,
  ExcelProcessorParamsSchema,
  GraphErrorCode,
  GraphException,
  getVariableValue,
  type ComponentContext,
  type ComponentEffect,
} from '@switchyard/graph';
import { FileStore } from '@switchyard/persistence';
import type { ComponentRunner } from '../component-runner';
import { fileOfValue } from './file-input';

const failed = (message: string) =>
  new GraphException(GraphErrorCode.ComponentFailed, `ExcelProcessor: ${message}`);

/** `pd.DataFrame(data)` of a list: rows of objects, or one column `0` of plain values. */
function frameOfList(items: readonly unknown[]): Frame {
  if (items.length && items.every((x) => x === null || typeof x !== 'object' || Array.isArray(x))) {
    return frameFromRecords(items.map((x) => ({ 0: x })));
  }
  return frameFromRecords(items);
}

const asFrame = (build: () => Frame): Frame => {
  try {
    return build();
  } catch (err) {
    throw failed((err as Error).message);
  }
};

const isSheets = (d: unknown): d is Record<string, unknown[]> =>
  !!d &&
  typeof d === 'object' &&
  !Array.isArray(d) &&
  Object.keys(d).length > 0 &&
  Object.values(d).every((v) => Array.isArray(v));

/**
 * RAGFlow's ExcelProcessor (`agent/component/excel_processor.py`): `read` parses the files its
 * `input_files` refer to (xlsx or csv) into `data` (records per file and sheet), a `summary` and
 * the first ten rows of each as `markdown`; `merge` concatenates or outer-joins them; `transform`
 * turns a referenced value into tables; `output` writes a referenced value as an .xlsx (a sheet per
 * list) or .csv file, kept in the tenant's files (`attachment.doc_id` is its id). Departure: a file
 * that cannot be read or written fails the component (RAGFlow logs it and goes on without it).
 */
@Injectable()
export class ExcelProcessorComponent implements ComponentRunner {
  readonly names: readonly string[] = ['ExcelProcessor'];
  constructor(@Inject(FileStore) private readonly files: FileStore) {}

  async run(ctx: ComponentContext): Promise<ComponentEffect> {
    const p = ExcelProcessorParamsSchema.parse(ctx.component.params);
    switch (p.operation) {
      case 'read':
        return this.read(ctx, p);
      case 'merge':
        return this.merge(ctx, p);
      case 'transform':
        return this.transform(ctx, p);
      case 'output':
        return this.output(ctx, p);
    }
  }

  /** Each referenced file's sheets, keyed `<file>` (one sheet) or `<file>_<sheet>`. */
  private async sheets(ctx: ComponentContext, p: ExcelProcessorParams): Promise<[string, Frame][]> {
    const out: [string, Frame][] = [];
    for (const ref of p.input_files) {
      const value = getVariableValue(ctx.scope, ref);
      if (value === null || value === undefined) {
        continue;
      }
      const file = await fileOfValue(this.files, ctx.tenantId, value);
      if (!file) {
        continue;
      }
      let frames: Record<string, Frame>;
      try {
        frames = await readSpreadsheet(file.content, file.filename, p.sheet_selection);
      } catch (err) {
        throw err instanceof SpreadsheetError ? failed(`"${file.filename}" is ${err.message}`) : err;
      }
      const entries = Object.entries(frames);
      for (const [sheet, frame] of entries) {
        out.push([entries.length > 1 ? `${file.filename}_${sheet}` : file.filename, frame]);
      }
    }
    return out;
  }

  private async read(ctx: ComponentContext, p: ExcelProcessorParams): Promise<ComponentEffect> {
    const sheets = await this.sheets(ctx, p);
    const summary = sheets.map(([key, f]) => {
      const cols = f.columns.slice(0, 5).join(', ') + (f.columns.length > 5 ? '...' : '');
      return `**${key}**: ${f.rows.length} rows, ${f.columns.length} columns (${cols})`;
    });
    return {
      outputs: {
        data: Object.fromEntries(sheets.map(([key, f]) => [key, recordsOf(f)])),
        summary: summary.length ? summary.join('\n') : 'No Excel files found',
        markdown: sheets.length
          ? sheets.map(([key, f]) => `### ${key}\n\n${frameMarkdown(f, 10)}\n`).join('\n\n')
          : 'No data',
      },
      summary: `ExcelProcessor read ${sheets.length} sheet(s)`,
    };
  }

  private async merge(ctx: ComponentContext, p: ExcelProcessorParams): Promise<ComponentEffect> {
    const frames = (await this.sheets(ctx, p)).map(([, f]) => f);
    if (!frames.length) {
      return {
        outputs: { data: {}, summary: 'No data to merge', markdown: '' },
        summary: 'ExcelProcessor: nothing to merge',
      };
    }
    const merged =
      p.merge_strategy === 'join' && p.join_on
        ? asFrame(() => frames.slice(1).reduce((acc, f) => outerJoin(acc, f, p.join_on), frames[0]))
        : concatFrames(frames);
    return {
      outputs: {
        data: { merged: recordsOf(merged) },
        summary: `Merged ${frames.length} sources into ${merged.rows.length} rows, ${merged.columns.length} columns`,
        markdown: frameMarkdown(merged, 20),
      },
      summary: `ExcelProcessor merged ${frames.length} table(s)`,
    };
  }

  private referenced(ctx: ComponentContext, p: ExcelProcessorParams): unknown {
    return p.transform_data ? getVariableValue(ctx.scope, p.transform_data) : undefined;
  }

  private transform(ctx: ComponentContext, p: ExcelProcessorParams): ComponentEffect {
    const data = this.referenced(ctx, p);
    const none = !p.transform_data ? 'No transform data reference provided' : 'Transform data is empty';
    if (data === null || data === undefined) {
      return { outputs: { data: {}, summary: none, markdown: '' }, summary: `ExcelProcessor: ${none}` };
    }
    let outputs: Record<string, unknown>;
    if (isSheets(data)) {
      const parts = Object.entries(data).map(
        ([name, rows]) => `### ${name}\n\n${frameMarkdown(asFrame(() => frameOfList(rows)))}`,
      );
      outputs = { data, markdown: parts.join('\n\n') };
    } else if (Array.isArray(data) || (typeof data === 'object' && data !== null)) {
      const frame = asFrame(() => (Array.isArray(data) ? frameOfList(data) : frameFromRecords([data])));
      outputs = { data: recordsOf(frame), markdown: frameMarkdown(frame) };
    } else {
      outputs = { data: { raw: String(data) }, markdown: String(data) };
    }
    return {
      outputs: { ...outputs, summary: 'Transformed data ready for processing' },
      summary: 'ExcelProcessor transformed the data',
    };
  }

  private async output(ctx: ComponentContext, p: ExcelProcessorParams): Promise<ComponentEffect> {
    const data = this.referenced(ctx, p);
    if (data === null || data === undefined) {
      const none = !p.transform_data ? 'No data reference for output' : 'No data to output';
      return { outputs: { data: {}, summary: none, markdown: '' }, summary: `ExcelProcessor: ${none}` };
    }
    let sheets: Record<string, Frame>;
    if (isSheets(data)) {
      sheets = Object.fromEntries(
        Object.entries(data).map(([k, rows]) => [k, asFrame(() => frameOfList(rows))]),
      );
    } else if (Array.isArray(data)) {
      sheets = { Sheet1: asFrame(() => frameOfList(data)) };
    } else if (typeof data === 'object') {
      sheets = { Sheet1: asFrame(() => frameFromRecords([data])) };
    } else {
      throw failed('Invalid data format for Excel output: a list of rows or an object of sheets is needed');
    }
    const csv = p.output_format === 'csv';
    const filename = `${p.output_filename}.${p.output_format}`;
    const content = csv ? writeCsv(Object.values(sheets)[0]) : await writeXlsx(sheets);
    const file = await this.files.put({
      tenantId: ctx.tenantId,
      runId: ctx.runId,
      taskId: ctx.taskId,
      name: filename,
      mimeType: csv ? 'text/csv' : 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      content,
    });
    const rows = Object.values(sheets).reduce((n, f) => n + f.rows.length, 0);
    const count = Object.keys(sheets).length;
    return {
      outputs: {
        attachment: { doc_id: file.id, format: p.output_format, file_name: filename },
        summary: `Generated ${filename} with ${count} sheet(s), ${rows} total rows`,
        data: Object.fromEntries(Object.entries(sheets).map(([k, f]) => [k, recordsOf(f)])),
      },
      summary: `ExcelProcessor wrote ${filename} (${content.length} bytes)`,
    };
  }
}
