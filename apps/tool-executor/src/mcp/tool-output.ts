// Turns an MCP tool result into what an action may carry: content blocks capped to the server's
// byte budget. Everything here is data from a third party, not instructions: callers mark it
// untrusted.

export type McpContentBlock =
  | { type: 'text'; text: string }
  | { type: 'image' | 'audio'; mimeType: string; data?: string; omitted_bytes?: number }
  | {
      type: 'resource';
      uri: string;
      mimeType?: string;
      text?: string;
      blob?: string;
      omitted_bytes?: number;
    }
  | { type: 'resource_link'; uri: string; name?: string; mimeType?: string; description?: string }
  | { type: 'unknown'; original_type: string };

export interface CappedOutput {
  content: McpContentBlock[];
  structured_content?: unknown;
  truncated: boolean;
  /** Bytes of the output before capping (text as UTF-8, binary as its base64 text). */
  bytes: number;
}

const enc = new TextEncoder();
const byteLength = (s: string): number => enc.encode(s).length;

/** The longest prefix of `s` within `max` UTF-8 bytes, never splitting a character. */
export function truncateUtf8(s: string, max: number): string {
  if (max <= 0) {
    return '';
  }
  if (byteLength(s) <= max) {
    return s;
  }
  const bytes = enc.encode(s).subarray(0, max);
  // A cut inside a multi-byte character leaves a partial sequence: decode drops it as U+FFFD, so trim that.
  return new TextDecoder().decode(bytes).replace(/\uFFFD$/, '');
}

type Raw = Record<string, unknown>;
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * Caps the blocks in order: text is cut at the remaining budget, binary data (images, audio,
 * blobs) that does not fit whole is dropped with its size noted, and once the budget is spent
 * later blocks are left out. Structured content is kept only when it fits after the blocks.
 */
export function capToolOutput(
  result: { content?: unknown; structuredContent?: unknown },
  maxBytes: number,
): CappedOutput {
  let left = maxBytes;
  let total = 0;
  let truncated = false;
  const content: McpContentBlock[] = [];
  const blocks = Array.isArray(result.content) ? (result.content as Raw[]) : [];
  for (const block of blocks) {
    if (left <= 0) {
      truncated = true;
      total += blockBytes(block);
      continue;
    }
    const type = str(block['type']) ?? 'unknown';
    if (type === 'text') {
      const text = str(block['text']) ?? '';
      const n = byteLength(text);
      total += n;
      const kept = truncateUtf8(text, left);
      // A cut text spends the whole budget: later blocks would read as if they followed it.
      left = kept.length < text.length ? 0 : left - n;
      truncated ||= kept.length < text.length;
      content.push({ type: 'text', text: kept });
    } else if (type === 'image' || type === 'audio') {
      const data = str(block['data']) ?? '';
      total += data.length;
      const mimeType = str(block['mimeType']) ?? 'application/octet-stream';
      if (data.length <= left) {
        left -= data.length;
        content.push({ type, mimeType, data });
      } else {
        truncated = true;
        content.push({ type, mimeType, omitted_bytes: data.length });
      }
    } else if (type === 'resource') {
      const r = (block['resource'] ?? {}) as Raw;
      const uri = str(r['uri']) ?? '';
      const mimeType = str(r['mimeType']);
      const base = { type: 'resource' as const, uri, ...(mimeType ? { mimeType } : {}) };
      left -= byteLength(uri);
      const text = str(r['text']);
      const blob = str(r['blob']);
      if (text !== undefined) {
        total += byteLength(text);
        const kept = truncateUtf8(text, left);
        truncated ||= kept.length < text.length;
        left = kept.length < text.length ? 0 : left - byteLength(kept);
        content.push({ ...base, text: kept });
      } else if (blob !== undefined) {
        total += blob.length;
        if (blob.length <= left) {
          left -= blob.length;
          content.push({ ...base, blob });
        } else {
          truncated = true;
          content.push({ ...base, omitted_bytes: blob.length });
        }
      } else {
        content.push(base);
      }
    } else if (type === 'resource_link') {
      const link = {
        type: 'resource_link' as const,
        uri: str(block['uri']) ?? '',
        ...(str(block['name']) ? { name: str(block['name']) } : {}),
        ...(str(block['mimeType']) ? { mimeType: str(block['mimeType']) } : {}),
        ...(str(block['description']) ? { description: str(block['description']) } : {}),
      };
      const n = byteLength(JSON.stringify(link));
      total += n;
      if (n <= left) {
        left -= n;
        content.push(link);
      } else {
        truncated = true;
        left = 0;
      }
    } else {
      content.push({ type: 'unknown', original_type: type.slice(0, 100) });
    }
  }
  const out: CappedOutput = { content, truncated, bytes: total };
  if (result.structuredContent !== undefined) {
    const json = JSON.stringify(result.structuredContent);
    const n = byteLength(json ?? '');
    out.bytes += n;
    if (n <= left) {
      out.structured_content = result.structuredContent;
    } else {
      out.truncated = true;
    }
  }
  return out;
}

function blockBytes(block: Raw): number {
  const r = (block['resource'] ?? {}) as Raw;
  return (
    byteLength(str(block['text']) ?? str(r['text']) ?? '') +
    (str(block['data']) ?? str(r['blob']) ?? '').length
  );
}

/** The text of a result's text blocks (an error result explains itself there), capped. */
export function resultText(result: { content?: unknown }, maxBytes: number): string {
  const blocks = Array.isArray(result.content) ? (result.content as Raw[]) : [];
  const text = blocks
    .map((b) => str(b['text']))
    .filter((t): t is string => t !== undefined)
    .join('\n');
  return truncateUtf8(text, maxBytes);
}
