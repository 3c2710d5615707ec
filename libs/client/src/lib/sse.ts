/** One server-sent event frame. */
export interface SseFrame {
  id?: string;
  event: string;
  data: string;
}

/**
 * Frames of a `text/event-stream` body as they arrive (comments such as heartbeats go to
 * `onComment`, if given). Ends when the body ends; throws what reading the body throws (a dropped
 * connection). The one SSE reader of the code base: the client, the tests and the benches use it.
 */
export async function* sseFrames(
  body: AsyncIterable<Uint8Array>,
  opts: {
    onComment?: (text: string) => void;
    /** The event of a frame without an `event:` line (the standard's `message`). */
    defaultEvent?: string;
  } = {},
): AsyncGenerator<SseFrame> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true }).replace(/\r\n?/g, '\n');
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const frame = parseBlock(block, opts.defaultEvent ?? 'message', opts.onComment);
      if (frame) {
        yield frame;
      }
    }
  }
}

function parseBlock(
  block: string,
  defaultEvent: string,
  onComment?: (text: string) => void,
): SseFrame | undefined {
  let id: string | undefined;
  let event = defaultEvent;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) {
      onComment?.(line.slice(1).trim());
      continue;
    }
    if (!line) {
      continue;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') {
      id = value;
    } else if (field === 'event') {
      event = value;
    } else if (field === 'data') {
      data.push(value);
    }
  }
  return data.length ? { ...(id !== undefined ? { id } : {}), event, data: data.join('\n') } : undefined;
}
