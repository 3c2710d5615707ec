import { type DownloadInfo, downloadsIn } from '@switchyard/graph';

/**
 * A value spliced into a Message's (or a DocGenerator's) text, as RAGFlow's
 * `_stringify_message_value` does: a made file's download info is taken out as a download and
 * shows as nothing — or as its JSON when it asks to be in the content; null is empty, text is
 * itself, anything else its JSON.
 */
export function messageValueText(
  value: unknown,
  json: (v: unknown) => string,
): { text: string; downloads: DownloadInfo[] } {
  const downloads = downloadsIn(value).map(({ include_download_info_in_content: _, ...d }) => d);
  if (downloads.length) {
    const inContent = downloadsIn(value).some((d) => d.include_download_info_in_content);
    const shown =
      Array.isArray(value) || (typeof value === 'string' && value.trim().startsWith('['))
        ? downloads
        : downloads[0];
    return { text: inContent ? JSON.stringify(shown) : '', downloads };
  }
  return {
    text: value === null || value === undefined ? '' : typeof value === 'string' ? value : json(value),
    downloads,
  };
}
