import type { Action, JsonPatchOperation, OriginFile, RuntimeState } from '@switchyard/contracts';
import { type FileSourceOptions, FileSourceError, readOriginFile } from './file-source';
import { type Bucket, ParseError, fileKind, parseFile } from '@switchyard/knowledge';

/** Characters of a document put in the action's context (the whole text is in the state). */
export const CONTEXT_CHARS = 8_000;

export interface FileOutcome {
  name: string;
  bucket: Bucket;
  value: Record<string, unknown>;
  error?: string;
}

export interface PreprocessOutcome {
  files: FileOutcome[];
  patch: JsonPatchOperation[];
  context: NonNullable<Action['context']>;
  summary: string;
}

/** RFC 6901: `~` → `~0`, `/` → `~1`. */
export function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function alreadyDone(state: Readonly<RuntimeState>, name: string): boolean {
  const p = state.preprocessed_files;
  return (
    Object.hasOwn(p.documents, name) || Object.hasOwn(p.tables, name) || Object.hasOwn(p.other_files, name)
  );
}

async function preprocessOne(file: OriginFile, opts: FileSourceOptions): Promise<FileOutcome> {
  try {
    const data = await readOriginFile(file, opts);
    const { bucket, value } = await parseFile(fileKind(file.name, file.type), data, file.type);
    return { name: file.name, bucket, value };
  } catch (err) {
    if (err instanceof FileSourceError || err instanceof ParseError) {
      return { name: file.name, bucket: 'other_files', value: { error: err.message }, error: err.message };
    }
    throw err;
  }
}

/**
 * Reads and parses each file of the run not preprocessed yet: one `add` patch per file, under
 * documents, tables or other_files. A file that cannot be read or parsed becomes
 * `other_files[name] = { error }`; unexpected errors (a full disk, …) propagate.
 */
export async function preprocessFiles(
  state: Readonly<RuntimeState>,
  opts: FileSourceOptions,
): Promise<PreprocessOutcome> {
  const seen = new Set<string>();
  const todo = state.origin_files.filter((f) => {
    const fresh = !alreadyDone(state, f.name) && !seen.has(f.name);
    seen.add(f.name);
    return fresh;
  });
  const files: FileOutcome[] = [];
  for (const file of todo) {
    files.push(await preprocessOne(file, opts));
  }
  const patch: JsonPatchOperation[] = files.map((f) => ({
    op: 'add',
    path: `/preprocessed_files/${f.bucket}/${escapePointer(f.name)}`,
    value: f.value,
  }));
  const context: PreprocessOutcome['context'] = files
    .filter((f) => f.bucket === 'documents')
    .map((f) => ({
      type: 'text' as const,
      content: `[${f.name}]\n${String(f.value['text']).slice(0, CONTEXT_CHARS)}`,
      important: false,
      usage_type: 'reference' as const,
    }));
  return { files, patch, context, summary: summarize(files, state.origin_files.length) };
}

function summarize(files: FileOutcome[], total: number): string {
  if (files.length === 0) {
    return total === 0 ? 'No files to preprocess.' : `All ${total} files were already preprocessed.`;
  }
  const count = (b: Bucket) => files.filter((f) => f.bucket === b && !f.error).length;
  const failed = files.filter((f) => f.error);
  const parts = [
    `${count('documents')} document(s)`,
    `${count('tables')} table(s)`,
    `${count('other_files')} other file(s)`,
  ];
  let summary = `Preprocessed ${files.length} file(s): ${parts.join(', ')}`;
  if (failed.length > 0) {
    summary += `; ${failed.length} failed: ${failed.map((f) => `${f.name}: ${f.error}`).join('; ')}`;
  }
  return `${summary}.`;
}
