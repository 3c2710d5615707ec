import type { FileStore } from '@switchyard/persistence';
import { GraphErrorCode, GraphException } from '@switchyard/graph';

/**
 * A file a canvas value refers to (RAGFlow `ExcelProcessor._get_file_content`): a file object of
 * the run's tenant (`{id | file_id, name?}`, as `POST /v1/files` answers), the first of a list of
 * them, or a `data:` URL (named `uploaded.xlsx`). Any other value refers to no file. A file id the
 * tenant does not have fails the component, naming it.
 */
export async function fileOfValue(
  files: FileStore,
  tenantId: string,
  value: unknown,
): Promise<{ content: Buffer; filename: string } | undefined> {
  if (Array.isArray(value)) {
    const first: unknown = value[0];
    return first && typeof first === 'object' ? fileOfValue(files, tenantId, first) : undefined;
  }
  if (value && typeof value === 'object') {
    const v = value as Record<string, unknown>;
    const id = v['id'] ?? v['file_id'];
    if (typeof id !== 'string' || !id) {
      return undefined;
    }
    const found = /^[0-9a-f-]{36}$/i.test(id) ? await files.read(tenantId, id) : undefined;
    if (!found) {
      throw new GraphException(GraphErrorCode.ComponentFailed, `file "${id}" not found`);
    }
    const name = v['name'] ?? v['filename'];
    return { content: found.content, filename: typeof name === 'string' && name ? name : found.file.name };
  }
  if (typeof value === 'string' && value.startsWith('data:')) {
    const comma = value.indexOf(',');
    if (comma < 0 || !/;base64$/i.test(value.slice(0, comma))) {
      throw new GraphException(GraphErrorCode.ComponentFailed, 'a data: URL file must be base64-encoded');
    }
    const content = Buffer.from(value.slice(comma + 1), 'base64');
    return { content, filename: 'uploaded.xlsx' };
  }
  return undefined;
}
