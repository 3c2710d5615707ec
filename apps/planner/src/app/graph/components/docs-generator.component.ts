import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { DocumentError, renderDocument } from '@switchyard/documents';
import {
  DocGeneratorParamsSchema,
  type DownloadInfo,
  GraphErrorCode,
  GraphException,
  getVariableValue,
  sanitizeFilename,
  templateSegments,
  type ComponentContext,
  type ComponentEffect,
} from '@switchyard/graph';
import { FileStore } from '@switchyard/persistence';
import type { ComponentRunner } from '../component-runner';
import { GraphProvidersConfig } from '../graph-providers.config';
import { messageValueText } from './message-value';

/** The path the gateway serves a file of the run's tenant at. */
export const fileDownloadPath = (id: string) => `/v1/files/${id}/content`;

/**
 * RAGFlow's DocGenerator (`agent/component/docs_generator.py`): its `content` with references
 * spliced in as a Message does (a reference it cannot resolve as `[ERROR: …]`), reasoning
 * (`<think>…</think>`) stripped, written as pdf, docx, txt, markdown or html with the header,
 * footer, watermark, page numbers and timestamp asked for, and kept in the tenant's files.
 * Outputs: `doc_id` (the file's id), `filename`, `mime_type`, `size` and `download` — the JSON a
 * Message turns into a download (without RAGFlow's inline base64: the file is fetched from
 * `url`). Times are UTC.
 */
@Injectable()
export class DocsGeneratorComponent implements ComponentRunner {
  readonly names: readonly string[] = ['DocGenerator'];
  constructor(
    @Inject(FileStore) private readonly files: FileStore,
    @Inject(GraphProvidersConfig) private readonly config: GraphProvidersConfig,
  ) {}

  async run(ctx: ComponentContext): Promise<ComponentEffect> {
    const p = DocGeneratorParamsSchema.parse(ctx.component.params);
    const content = templateSegments(p.content)
      .map((s) => {
        if ('text' in s) {
          return s.text;
        }
        try {
          return messageValueText(getVariableValue(ctx.scope, s.ref)).text;
        } catch (err) {
          return `[ERROR: ${(err as Error).message}]`;
        }
      })
      .join('')
      .replace(/<think>[\s\S]*?<\/think>/g, '')
      .trim();
    // UTC, as `YYYY-MM-DD HH:MM:SS` in the document and `YYYYMMDD_HHMMSS` in a made-up name.
    const now = new Date().toISOString().slice(0, 19);
    let doc;
    try {
      doc = await renderDocument(content, p.output_format, {
        fontSize: p.font_size,
        headerText: p.header_text || undefined,
        footerText: p.footer_text || undefined,
        watermarkText: p.watermark_text || undefined,
        addPageNumbers: p.add_page_numbers,
        timestamp: p.add_timestamp ? `Generated: ${now.replace('T', ' ')}` : undefined,
        pdfFontPath: this.config.docsPdfFont,
      });
    } catch (err) {
      if (err instanceof DocumentError) {
        throw new GraphException(
          GraphErrorCode.ComponentFailed,
          `Document generation failed: ${p.output_format.toUpperCase()} generation failed: ${err.message}`,
        );
      }
      throw err;
    }
    const filename = p.filename
      ? sanitizeFilename(p.filename, doc.extension)
      : `document_${now.replace(/[-:]/g, '').replace('T', '_')}_${randomBytes(4).toString('hex')}.${doc.extension}`;
    // One file per task: a redelivered task replaces its file and keeps the id.
    const file = await this.files.put({
      tenantId: ctx.tenantId,
      runId: ctx.runId,
      taskId: ctx.taskId,
      name: filename,
      mimeType: doc.mimeType,
      content: doc.content,
    });
    const download: DownloadInfo = {
      doc_id: file.id,
      filename,
      mime_type: doc.mimeType,
      size: file.size,
      url: fileDownloadPath(file.id),
      include_download_info_in_content: p.include_download_info_in_content,
    };
    return {
      outputs: {
        doc_id: file.id,
        filename,
        mime_type: doc.mimeType,
        size: file.size,
        download: JSON.stringify(download),
      },
      summary: `DocGenerator wrote ${filename} (${file.size} bytes)`,
    };
  }
}
