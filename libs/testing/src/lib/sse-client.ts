/** One SSE frame as a client sees it. */
export interface SseFrame {
  id?: string;
  event?: string;
  data: string;
}

export interface SseRead {
  frames: SseFrame[];
  /** Comment lines (`: heartbeat`). */
  comments: string[];
  status: number;
  contentType: string | null;
  /**
   * The `close` control event the server ended the stream with, kept apart from `frames` (a run's
   * stream ends `… done, close` once the run is over, or `close` alone when the gateway stops
   * early).
   */
  close?: SseFrame;
}

/**
 * Reads an SSE response over real HTTP until the server ends it, `stopAfter` frames arrived, or
 * `timeoutMs` passed (then it aborts and reports what it got).
 */
export async function readSse(
  url: string,
  opts: {
    headers?: Record<string, string>;
    stopAfter?: number;
    timeoutMs?: number;
    /** Called as each frame arrives (live display). */
    onFrame?: (frame: SseFrame) => void;
  } = {},
): Promise<SseRead> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), opts.timeoutMs ?? 30_000);
  const frames: SseFrame[] = [];
  const comments: string[] = [];
  const res = await fetch(url, {
    headers: { Accept: 'text/event-stream', ...opts.headers },
    signal: controller.signal,
  });
  const out: SseRead = { frames, comments, status: res.status, contentType: res.headers.get('content-type') };
  if (!res.body || res.status !== 200) {
    clearTimeout(timer);
    return out;
  }
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let idx: number;
      while ((idx = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, idx);
        buffer = buffer.slice(idx + 2);
        const frame: SseFrame = { data: '' };
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) {
            comments.push(line.slice(1).trim());
          } else if (line.startsWith('id: ')) {
            frame.id = line.slice(4);
          } else if (line.startsWith('event: ')) {
            frame.event = line.slice(7);
          } else if (line.startsWith('data: ')) {
            data.push(line.slice(6));
          }
        }
        if (data.length || frame.event) {
          frame.data = data.join('\n');
          if (frame.event === 'close') {
            // The stream's last word: kept apart, not counted as a frame.
            out.close = frame;
            continue;
          }
          frames.push(frame);
          opts.onFrame?.(frame);
          if (opts.stopAfter !== undefined && frames.length >= opts.stopAfter) {
            controller.abort();
            return out;
          }
        }
      }
    }
  } catch (err) {
    if (!controller.signal.aborted) {
      throw err;
    }
  } finally {
    clearTimeout(timer);
  }
  return out;
}
