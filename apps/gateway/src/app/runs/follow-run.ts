import type { DataSource } from 'typeorm';
import { type RunEvent, type RunStatus, isTerminal } from '@switchyard/contracts';
import type { RunEventHub } from '@switchyard/events';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { RunStreamsRepository } from './run-streams.repository';

export interface FollowRun {
  hub: RunEventHub;
  ds: DataSource;
  runId: string;
  /** Events after this id are followed. */
  cursor: string;
  /** Human tasks the caller answered: a wait on one of them is the wait that just ended. */
  answered: ReadonlySet<string>;
  /** Each followed event, until the run stops. */
  onEvent?: (e: RunEvent) => void;
  /** How often Postgres is read for the run's status (default 5 s). */
  watchdogMs?: number;
  /** Gives up (503 naming the run) after this long (default 10 min: longer runs are followed on /v1/runs). */
  maxWaitMs?: number;
  /** Stops following (the caller went away): the promise rejects with `FollowAborted`. */
  signal?: AbortSignal;
}

/** The follower was stopped by its caller's signal. */
export class FollowAborted extends Error {
  constructor(runId: string) {
    super(`stopped following run ${runId}`);
    this.name = 'FollowAborted';
  }
}

const WATCHDOG_MS = 5000;
const MAX_WAIT_MS = 10 * 60_000;

/**
 * Follows a run's events until it ends (its final status) or waits for a new answer
 * (`waiting`). Postgres has the truth: events can be lost with Redis, and a `waiting` event may
 * be the wait the caller just answered — a watchdog reads the run's row.
 */
export function followRun(f: FollowRun): Promise<RunStatus> {
  return new Promise<RunStatus>((resolve, reject) => {
    let finished = false;
    let unsubscribe: (() => void) | undefined;
    const abort = () => end(() => reject(new FollowAborted(f.runId)));
    const end = (fn: () => void) => {
      if (!finished) {
        finished = true;
        clearInterval(watchdog);
        clearTimeout(deadline);
        f.signal?.removeEventListener('abort', abort);
        unsubscribe?.();
        fn();
      }
    };
    const check = () => {
      new RunStreamsRepository(f.ds)
        .status(f.runId)
        .then((row) => {
          if (!row) {
            return;
          }
          if (isTerminal(row.status)) {
            end(() => resolve(row.status));
          } else if (row.status === 'waiting' && !f.answered.has(row.waiting_task ?? '')) {
            end(() => resolve('waiting'));
          }
        })
        .catch(() => undefined);
    };
    const watchdog = setInterval(check, f.watchdogMs ?? WATCHDOG_MS);
    const deadline = setTimeout(
      () =>
        end(() =>
          reject(
            new ApiException(
              ApiErrorCode.Unavailable,
              `run ${f.runId} did not finish within ${(f.maxWaitMs ?? MAX_WAIT_MS) / 1000} s; follow it on /v1/runs`,
            ),
          ),
        ),
      f.maxWaitMs ?? MAX_WAIT_MS,
    );
    if (f.signal?.aborted) {
      abort();
      return;
    }
    f.signal?.addEventListener('abort', abort, { once: true });
    f.hub
      .subscribe(f.runId, f.cursor, (events) => {
        for (const e of events) {
          if (!finished) {
            f.onEvent?.(e);
          }
          if (e.event_type === 'status' && (e.payload as { status: RunStatus }).status === 'waiting') {
            check();
          }
          if (e.event_type === 'done') {
            end(() => resolve((e.payload as { status: RunStatus }).status));
            return;
          }
        }
      })
      .then((u) => {
        unsubscribe = u;
        if (finished) {
          u();
        }
        // The run may have stopped before the subscription began.
        check();
      })
      .catch((err: unknown) => end(() => reject(err)));
  });
}
