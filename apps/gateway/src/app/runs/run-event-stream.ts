import type { Response } from 'express';
import type { DataSource } from 'typeorm';
import { type RunEvent, actionEventPayload, isTerminal, waitingForUserPayload } from '@switchyard/contracts';
import type { RunEventHub, RunEventReader } from '@switchyard/events';
import type { PgStateSource } from '@switchyard/persistence';
import { RunStreamsRepository } from './run-streams.repository';
import { sseSubscribers } from './stream.metrics';

const PAGE = 500;
// Ids of events rebuilt from Postgres: `0-<n>`, below every id Redis assigns.
const REBUILT_ID = /^0-(\d+)$/;

export interface StreamDeps {
  hub: RunEventHub;
  reader: RunEventReader;
  ds: DataSource;
  states: PgStateSource;
  heartbeatMs: number;
  /**
   * Ends the stream early with a `close` control event that tells the client to reconnect with
   * `Last-Event-ID` (the signal's reason: `lifetime` when the stream reached its maximum age,
   * `shutdown` when the gateway is going away).
   */
  stop?: AbortSignal;
}

const frame = (e: RunEvent): string => `id: ${e.seq}\nevent: ${e.event_type}\ndata: ${JSON.stringify(e)}\n\n`;

/** How events become SSE frames: Switchyard's own by default, or another vocabulary (RAGFlow's). */
export interface StreamEncoding {
  /** Its name (metrics). */
  readonly format: string;
  encode(e: RunEvent): string;
  /** Written once the run's `done` was sent (or `endsAt` said so), before the stream ends. */
  close(): Promise<string>;
  /** Ends the stream at this event although the run goes on (a LangGraph interrupt). */
  endsAt?(e: RunEvent): boolean;
}

/**
 * Writes a run's events as SSE: every event after the cursor, then the live ones until `done`.
 *
 * Redis keeps the events of a run as long as it keeps them; when they are gone (flushed,
 * restarted, expired) the history is rebuilt from Postgres — `status`, every committed `action`,
 * the final `status` and `done` — with ids `0-<n>`, so cursors into it stay valid. A cursor into
 * a history that no longer exists gets an explicit `reset` event, then the rebuilt history:
 * never a silent gap.
 */
export async function streamRunEvents(
  res: Response,
  runId: string,
  rawCursor: string | null,
  deps: StreamDeps,
  encoding?: StreamEncoding,
): Promise<void> {
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  res.flushHeaders();
  const format = encoding?.format ?? 'switchyard';
  sseSubscribers.inc({ format });
  let open = true;
  const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), deps.heartbeatMs);
  let closedEarly = false;
  const closeEarly = (): boolean => {
    if (!deps.stop?.aborted || closedEarly) {
      return closedEarly;
    }
    closedEarly = true;
    if (!encoding) {
      writeClose(res, runId, String(deps.stop.reason ?? 'shutdown'));
    }
    return true;
  };
  res.on('close', () => {
    open = false;
  });
  // Only where two histories meet (rebuilt from Postgres, then live) is anything dropped.
  const sent = new Dedup();
  let ended = false;
  const write = (e: RunEvent): boolean => {
    if (sent.accept(e)) {
      const text = encoding ? encoding.encode(e) : frame(e);
      if (text) {
        res.write(text);
      }
    }
    const last = e.event_type === 'done' || (encoding?.endsAt?.(e) ?? false);
    if (last) {
      ended = true;
    }
    return last;
  };
  try {
    const intact = await isIntact(deps.reader, runId);
    let cursor: string | null;
    if (intact) {
      cursor = await resolveCursor(deps.reader, runId, rawCursor);
      if (cursor && REBUILT_ID.test(cursor)) {
        // A cursor into a rebuilt history, but Redis has the run's events again.
        writeReset(res, runId, 'the event history was replaced; it follows from the start');
        cursor = null;
      }
      for (;;) {
        if (closeEarly()) {
          return;
        }
        const page = await deps.reader.after(runId, cursor, PAGE);
        // One socket write per page, not one per event (uncork flushes what the loop wrote).
        res.cork();
        try {
          for (const e of page) {
            cursor = e.seq;
            if (write(e)) {
              return;
            }
          }
        } finally {
          res.uncork();
        }
        if (page.length < PAGE) {
          break;
        }
      }
    } else {
      const cursorInLive = rawCursor && !/^\d+$/.test(rawCursor) && !REBUILT_ID.test(rawCursor);
      if (cursorInLive && (await deps.reader.has(runId, rawCursor))) {
        cursor = rawCursor;
      } else {
        const rebuilt = await rebuildFromPostgres(deps, runId);
        sent.merging = true;
        let after = 0;
        if (rawCursor && /^\d+$/.test(rawCursor)) {
          after = Number(rawCursor);
        } else if (rawCursor && REBUILT_ID.test(rawCursor)) {
          after = Number(REBUILT_ID.exec(rawCursor)![1]);
        } else if (rawCursor) {
          writeReset(
            res,
            runId,
            'the events after this cursor are no longer stored; the history is rebuilt from the database',
          );
        }
        for (const e of rebuilt) {
          if (Number(REBUILT_ID.exec(e.seq)![1]) <= after) {
            sent.note(e); // the client has it
          } else if (write(e)) {
            return;
          }
        }
        if (rebuilt.some((e) => e.event_type === 'done')) {
          return;
        }
        // Live events appended since Redis lost the old ones.
        cursor = '0-0';
      }
    }

    // Live: one shared blocking read per gateway process fans the run's events out, and the
    // hub's one watchdog says when the run ended but its `done` never reached Redis.
    await new Promise<void>((resolve, reject) => {
      let finished = false;
      let unsubscribe: (() => void) | undefined;
      const finish = () => {
        if (!finished) {
          finished = true;
          unsubscribe?.();
          resolve();
        }
      };
      res.on('close', finish);
      if (closeEarly()) {
        finish();
        return;
      }
      deps.stop?.addEventListener('abort', () => {
        closeEarly();
        finish();
      });
      const endedQuietly = () => {
        void (async () => {
          const rebuilt = await rebuildFromPostgres(deps, runId);
          for (const e of rebuilt.filter((x) => !sent.has(x))) {
            write({ ...e, seq: cursor ?? e.seq });
          }
        })()
          .catch(() => undefined)
          .finally(finish);
      };
      deps.hub
        .subscribe(
          runId,
          cursor ?? '0-0',
          (events) => {
            // One socket write per batch the hub read, not one per event.
            res.cork();
            try {
              for (const e of events) {
                cursor = e.seq;
                if (!finished && write(e)) {
                  finish();
                  return;
                }
              }
            } finally {
              res.uncork();
            }
          },
          endedQuietly,
        )
        .then((u) => {
          unsubscribe = u;
          if (finished) {
            u();
          }
        })
        .catch((err: unknown) => {
          finish();
          reject(err);
        });
    });
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
    sseSubscribers.dec({ format });
    clearInterval(heartbeat);
    if (open && ended) {
      // The run is over: seed 004's `close` control event ends every stream, saying not to come
      // back (an early close says `reconnect: true`).
      res.write(encoding ? await encoding.close() : closeFrame(runId, 'run_ended', false));
    }
    if (open) {
      res.end();
    }
  }
}

/** The stream ends before the run: reconnect with `Last-Event-ID` (no `id:`, the cursor stays). */
function writeClose(res: Response, runId: string, reason: string): void {
  res.write(closeFrame(runId, reason, true));
}

/** A `close` control event (no `id:`, so a cursor never points at it). */
function closeFrame(runId: string, reason: string, reconnect: boolean): string {
  return `event: close\ndata: ${JSON.stringify({ run_id: runId, event_type: 'close', payload: { reason, reconnect }, ts: Date.now() })}\n\n`;
}

function writeReset(res: Response, runId: string, reason: string): void {
  res.write(
    `event: reset\ndata: ${JSON.stringify({ run_id: runId, event_type: 'reset', payload: { reason }, ts: Date.now() })}\n\n`,
  );
}

/** A run's stream starts with the gateway's `status: queued`; without it, Redis lost events. */
async function isIntact(reader: RunEventReader, runId: string): Promise<boolean> {
  const [first] = await reader.after(runId, null, 1);
  return (
    !!first && first.event_type === 'status' && (first.payload as { status: string }).status === 'queued'
  );
}

/** An integer cursor means "after the first n events". */
async function resolveCursor(
  reader: RunEventReader,
  runId: string,
  raw: string | null,
): Promise<string | null> {
  if (raw === null) {
    return null;
  }
  return /^\d+$/.test(raw) ? reader.idOfNth(runId, Number(raw)) : raw;
}

/** Which of these runs are over (one query for every run a gateway's clients follow). */
export async function endedRuns(ds: DataSource, runIds: string[]): Promise<Set<string>> {
  return new Set(await new RunStreamsRepository(ds).ended(runIds));
}

/** Drops what a client already has when two histories meet (rebuilt, then live). */
class Dedup {
  private maxActionId = 0;
  private readonly statuses = new Set<string>();
  private done = false;

  has(e: RunEvent): boolean {
    switch (e.event_type) {
      case 'action':
        return (e.payload as { id: number }).id <= this.maxActionId;
      case 'status':
        return this.statuses.has((e.payload as { status: string }).status);
      case 'done':
        return this.done;
      default:
        return false;
    }
  }

  note(e: RunEvent): void {
    if (e.event_type === 'action') {
      this.maxActionId = Math.max(this.maxActionId, (e.payload as { id: number }).id);
    } else if (e.event_type === 'status') {
      this.statuses.add((e.payload as { status: string }).status);
    } else if (e.event_type === 'done') {
      this.done = true;
    }
  }

  /** Set once a rebuilt history was sent: from then on, live events it covers are dropped. */
  merging = false;

  accept(e: RunEvent): boolean {
    if (this.merging && this.has(e)) {
      return false;
    }
    this.note(e);
    return true;
  }
}

/** `status`, every committed `action`, the final `status` (+ `error`) and `done`, from Postgres. */
export async function rebuildFromPostgres(
  deps: Pick<StreamDeps, 'ds' | 'states'>,
  runId: string,
): Promise<RunEvent[]> {
  const run = await new RunStreamsRepository(deps.ds).forRebuild(runId);
  if (!run) {
    return [];
  }
  const actions = await deps.states.actionsOfRun(runId);
  const out: Omit<RunEvent, 'seq'>[] = [];
  const ev = (event_type: RunEvent['event_type'], payload: unknown, ts: Date | string | null) =>
    out.push({
      run_id: runId,
      event_type,
      payload: payload as never,
      ts: ts ? new Date(ts).getTime() : Date.now(),
    });
  ev('status', { status: 'queued' }, run.created_at);
  if (run.started_at) {
    ev('status', { status: 'running' }, run.started_at);
  }
  for (const a of actions) {
    ev('action', actionEventPayload(a), a.finished_at);
  }
  // A waiting run asks again: a client that lost the question must still be able to answer it.
  if (run.status === 'waiting' && run.waiting) {
    ev('status', { status: 'waiting' }, null);
    ev('waiting_for_user', waitingForUserPayload(run.waiting), null);
  }
  if (isTerminal(run.status)) {
    if (run.error) {
      ev('error', { code: run.error.code, message: run.error.message }, run.finished_at);
    }
    ev('status', { status: run.status }, run.finished_at);
    ev('done', { status: run.status }, run.finished_at);
  }
  return out.map((e, i) => ({ ...e, seq: `0-${i + 1}` }));
}
