import { Inject, Injectable } from '@nestjs/common';
import { readSpreadsheet, recordsOf } from '@switchyard/documents';
import {
  type BlockView,
  type EdgeEffect,
  GraphErrorCode,
  GraphException,
  type LoadFileRef,
  type PuppyWorkflow,
  decideFileType,
  fileRefs,
  loadPlan,
  loadedBlocks,
  loadedContent,
} from '@switchyard/graph';
import { parseFile, parsedText } from '@switchyard/knowledge';
import { FileStore } from '@switchyard/persistence';

/** The file types a load reads here (PuppyEngine's normalized types). */
export const LOADABLE_FILE_TYPES = ['txt', 'markdown', 'json', 'csv', 'pdf'] as const;

const failed = (message: string): never => {
  throw new GraphException(GraphErrorCode.ComponentFailed, message);
};

// Python's text mode (`open(path, "r")`) reads "\r\n" and "\r" as "\n".
const universalNewlines = (s: string): string => s.replace(/\r\n?/g, '\n');

/**
 * A file's content as PuppyEngine's `FileToTextParser` gives it, for the types read here: text
 * and markdown as their text, JSON as its value (`json.loads`), CSV as `pd.read_csv(…).to_dict
 * ("records")` (libs/documents' pandas typing), PDF as its text (libs/knowledge's pdf-parse;
 * upstream gives pymupdf4llm's markdown). Text and PDF go through libs/knowledge's `parseFile`,
 * which keeps a document's first 200,000 characters. Another type fails, naming the file.
 */
export async function parseLoadedFile(type: string, content: Buffer, label: string): Promise<unknown> {
  switch (type) {
    case 'txt':
    case 'markdown': {
      const parsed = await parseFile(type === 'txt' ? 'txt' : 'md', content, 'text/plain');
      return universalNewlines(parsedText(parsed) ?? '');
    }
    case 'json': {
      try {
        return JSON.parse(new TextDecoder('utf-8').decode(content)) as unknown;
      } catch (err) {
        return failed(`file ${label} is not valid JSON: ${(err as Error).message}`);
      }
    }
    case 'csv': {
      const sheets = await readSpreadsheet(content, 'load.csv').catch((err: unknown) =>
        failed(`file ${label}: ${(err as Error).message}`),
      );
      return recordsOf(sheets['Sheet1']);
    }
    case 'pdf': {
      const parsed = await parseFile('pdf', content, 'application/pdf').catch((err: unknown) =>
        failed(`file ${label}: ${(err as Error).message}`),
      );
      return parsedText(parsed) ?? '';
    }
    default:
      return failed(
        `file ${label} is of type ${type}: a load reads ${LOADABLE_FILE_TYPES.join(', ')} files here`,
      );
  }
}

/**
 * A PuppyEngine load edge: text and structured blocks load as their content; a file block loads
 * each tenant file it names (docs/adr/0016: `{id | file_id, name?}`, read from the tenant's files,
 * never another tenant's) parsed by its type (`decide_file_type`: the entry's `file_type`, the
 * stored MIME type, the name's extension), and writes the list of the parsed files. A file the
 * tenant does not have, or of a type not read here, fails the edge naming it (upstream puts a
 * "Failed to parse file" text in its place, which hides the mistake).
 */
@Injectable()
export class PuppyLoad {
  constructor(@Inject(FileStore) private readonly files: FileStore) {}

  async run(
    workflow: PuppyWorkflow,
    edgeId: string,
    views: Record<string, BlockView>,
    tenantId: string,
  ): Promise<EdgeEffect> {
    const plan = loadPlan(workflow, edgeId, views);
    const results: unknown[] = [];
    let files = 0;
    for (const item of plan.items) {
      if (plan.blockType !== 'file') {
        results.push(loadedContent(plan, item));
        continue;
      }
      const parsed: unknown[] = [];
      for (const ref of fileRefs(plan, item)) {
        parsed.push(await this.readFile(tenantId, plan.blockId, ref));
        files += 1;
      }
      results.push(parsed);
    }
    const what =
      plan.blockType === 'file' ? `${files} file(s)` : `${results.length} ${plan.blockType} content(s)`;
    return {
      blocks: loadedBlocks(workflow, edgeId, plan, results),
      summary: `load ${edgeId}: ${what} from ${plan.blockId}`,
    };
  }

  private async readFile(tenantId: string, blockId: string, ref: LoadFileRef): Promise<unknown> {
    const found = /^[0-9a-f-]{36}$/i.test(ref.id) ? await this.files.read(tenantId, ref.id) : undefined;
    if (!found) {
      return failed(`block ${blockId}: file "${ref.id}" not found`);
    }
    const name = ref.name ?? found.file.name;
    const type = decideFileType(ref.fileType ?? '', ref.mimeType ?? found.file.mime_type, name);
    return parseLoadedFile(type, found.content, `"${name}" (${ref.id}) of block ${blockId}`);
  }
}
