import type { ServerResponse } from 'node:http';

// Streamed replies: frames written one by one with the rule's delay between them, stopping when
// the client goes away.

/** Resolves after `ms`, or as soon as `signal` aborts; callers check `signal.aborted` afterwards. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) {
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Word-sized pieces that keep their whitespace, so joining them gives back `text` exactly. */
export function splitWords(text: string): string[] {
  return text.split(/(?<=\s)(?=\S)/).filter((piece) => piece !== '');
}

/** At least two pieces (for any string of 2+ chars), like OpenAI's streamed tool-call arguments. */
export function splitArguments(json: string): string[] {
  const size = Math.max(1, Math.min(12, Math.ceil(json.length / 2)));
  const pieces: string[] = [];
  for (let i = 0; i < json.length; i += size) {
    pieces.push(json.slice(i, i + size));
  }
  return pieces;
}

/**
 * Writes the frames one by one with `chunkDelayMs` between them, then ends the response (with
 * `last` after one more delay, when given). Stops without ending when the client went away.
 */
export async function writeFrames(
  res: ServerResponse,
  signal: AbortSignal,
  contentType: string,
  frames: string[],
  chunkDelayMs: number,
  last?: string,
): Promise<void> {
  res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-cache' });
  for (const [i, frame] of frames.entries()) {
    if (i > 0) {
      await sleep(chunkDelayMs, signal);
    }
    if (signal.aborted) {
      return;
    }
    res.write(frame);
  }
  if (last === undefined) {
    res.end();
    return;
  }
  await sleep(chunkDelayMs, signal);
  if (signal.aborted) {
    return;
  }
  res.end(last);
}
