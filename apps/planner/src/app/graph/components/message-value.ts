import { type DownloadInfo, downloadsIn, templateText } from '@switchyard/graph';

/**
 * A value spliced into a Message's (or a DocGenerator's) text, as RAGFlow's
 * `_stringify_message_value` does: a made file's download info (or a list of them) is taken out as
 * downloads and shows as nothing — or as its JSON when it asks to be in the content; any other
 * value as a template shows it (null empty, text itself, the rest Python's JSON).
 */
export function messageValueText(value: unknown): { text: string; downloads: DownloadInfo[] } {
  const found = downloadsIn(value);
  if (!found.length) {
    return { text: templateText(value), downloads: [] };
  }
  const downloads = found.map(({ include_download_info_in_content: _, ...d }) => d);
  if (!found.some((d) => d.include_download_info_in_content)) {
    return { text: '', downloads };
  }
  const list = Array.isArray(value) || (typeof value === 'string' && value.trim().startsWith('['));
  return { text: JSON.stringify(list ? downloads : downloads[0]), downloads };
}
