import type { Response } from 'express';
import type Redis from 'ioredis';
import { type RunEvent, isTerminal } from '@switchyard/contracts';
import { RunEventReader } from '@switchyard/events';

const FOLLOW_BLOCK_MS = 5000;

export interface StreamDeps {
  redis: Redis;
  reader: RunEventReader;
  heartbeatMs: number;
  /** The run's status in Postgres: ends a stream whose `done` event was lost. */
  status: () => Promise<string | undefined>;
}

const frame = (e: RunEvent): string => `id: ${e.seq}\nevent: ${e.event_type}\ndata: ${JSON.stringify(e)}\n\n`;

/**
 * Writes a run's events as SSE: every stored event after the cursor, then the live ones as they
 * are appended (blocking XREAD on a connection of its own), until `done`. A comment heartbeat
 * keeps proxies from closing an idle stream.
 */
export async function streamRunEvents(
  res: Response,
  runId: string,
  after: string | null,
  deps: StreamDeps,
): Promise<void> {
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  res.flushHeaders();
  let open = true;
  const blocking = deps.redis.duplicate();
  const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), deps.heartbeatMs);
  res.on('close', () => {
    open = false;
    blocking.disconnect();
  });
  let cursor = after;
  try {
    // Replay what is stored, in pages.
    for (;;) {
      const page = await deps.reader.after(runId, cursor, 500);
      for (const e of page) {
        res.write(frame(e));
        cursor = e.seq;
        if (e.event_type === 'done') {
          return;
        }
      }
      if (page.length < 500) {
        break;
      }
    }
    const follower = new RunEventReader(blocking);
    while (open) {
      const events = await follower.follow(runId, cursor, FOLLOW_BLOCK_MS);
      for (const e of events) {
        res.write(frame(e));
        cursor = e.seq;
        if (e.event_type === 'done') {
          return;
        }
      }
      if (events.length === 0 && open) {
        const status = await deps.status();
        if (
          status &&
          isTerminal(status as never) &&
          (await deps.reader.after(runId, cursor, 1)).length === 0
        ) {
          // The run ended but its `done` never reached Redis: say so rather than hang.
          res.write(
            `event: done\ndata: ${JSON.stringify({ run_id: runId, event_type: 'done', payload: { status }, ts: Date.now() })}\n\n`,
          );
          return;
        }
      }
    }
  } catch (err) {
    if (open) {
      res.write(
        `event: error\ndata: ${JSON.stringify({ run_id: runId, event_type: 'error', payload: { code: 'unavailable', message: 'the event stream broke; reconnect with Last-Event-ID' }, ts: Date.now() })}\n\n`,
      );
    }
    if (open) {
      throw err;
    }
  } finally {
    clearInterval(heartbeat);
    blocking.disconnect();
    if (open) {
      res.end();
    }
  }
}
