import { type SseFrame as ParsedFrame, sseFrames } from '@switchyard/client';

/** One SSE frame as the test sees it: the client's frame, unnamed when it had no `event:` line. */
export type SseFrame = Omit<ParsedFrame, 'event'> & { event?: string };

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
  try {
    for await (const parsed of sseFrames(res.body as unknown as AsyncIterable<Uint8Array>, {
      onComment: (text) => comments.push(text),
      // A frame without an `event:` line stays unnamed here (the standard would call it `message`).
      defaultEvent: '',
    })) {
      const frame: SseFrame = {
        ...(parsed.id !== undefined ? { id: parsed.id } : {}),
        ...(parsed.event ? { event: parsed.event } : {}),
        data: parsed.data,
      };
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
  } catch (err) {
    if (!controller.signal.aborted) {
      throw err;
    }
  } finally {
    clearTimeout(timer);
  }
  return out;
}
