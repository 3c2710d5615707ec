import type Redis from 'ioredis';
import { type RunEvent, compareSeq } from '@switchyard/contracts';
import { RunEventReader, eventsKey } from './run-events';

type Listener = (events: RunEvent[]) => void;

interface Subscriber {
  cursor: string;
  listener: Listener;
  /** Live events that arrived while the subscriber's backlog was being read. */
  queued: RunEvent[] | null;
  /** Called once when the run ended but the subscriber got nothing more (its `done` was lost). */
  onEndedQuietly?: () => void;
  sawDone: boolean;
}

export interface RunEventHubOptions {
  /**
   * Which of these runs have ended, per the system of record (Postgres). One call per watchdog
   * tick covers every followed run, however many subscribers each has.
   */
  endedRuns?: (runIds: string[]) => Promise<Set<string>>;
  /** How often followed runs are checked for having ended without a `done` event. */
  watchdogMs?: number;
}

const BLOCK_MS = 2000;
const COUNT = 500;
const WATCHDOG_MS = 5000;

interface FollowedRun {
  cursor: string;
  subs: Set<Subscriber>;
  /** Consecutive watchdog ticks that found the run ended. */
  endedSeen: number;
}

/**
 * Live run events for many subscribers over ONE blocking Redis connection: a single
 * `XREAD BLOCK` loop reads every followed run's stream and fans the events out, so a gateway
 * holding thousands of SSE clients holds one Redis connection for them, not thousands. A new
 * run interrupts the blocking read (`CLIENT UNBLOCK`) to be included at once. Likewise one
 * watchdog per hub (not per client) notices runs that ended without their `done` reaching Redis.
 */
export class RunEventHub {
  private readonly runs = new Map<string, FollowedRun>();
  private readonly reader: RunEventReader;
  private blockingId?: number;
  private loop?: Promise<void>;
  private closed = false;
  private watchdog?: NodeJS.Timeout;
  private checking = false;

  /** `control` runs ordinary commands; `blocking` is a connection of the hub's own. */
  constructor(
    private readonly control: Redis,
    private readonly blocking: Redis,
    private readonly options: RunEventHubOptions = {},
  ) {
    this.reader = new RunEventReader(control);
  }

  /** Followed runs and subscribers, for metrics. */
  get size(): { runs: number; subscribers: number } {
    let subscribers = 0;
    for (const r of this.runs.values()) {
      subscribers += r.subs.size;
    }
    return { runs: this.runs.size, subscribers };
  }

  /**
   * Delivers every event of the run after `cursor` (the id of the last event the subscriber
   * has; '0-0' for all) as it is appended. Returns the unsubscribe function.
   */
  async subscribe(
    runId: string,
    cursor: string,
    listener: Listener,
    onEndedQuietly?: () => void,
  ): Promise<() => void> {
    const sub: Subscriber = { cursor, listener, queued: [], onEndedQuietly, sawDone: false };
    let run = this.runs.get(runId);
    const isNew = !run;
    if (!run) {
      run = { cursor, subs: new Set(), endedSeen: 0 };
      this.runs.set(runId, run);
    }
    run.subs.add(sub);
    const unsubscribe = () => {
      const r = this.runs.get(runId);
      r?.subs.delete(sub);
      if (r && r.subs.size === 0) {
        this.runs.delete(runId);
      }
    };
    // Events the hub passed on before this subscriber came are read for it once.
    if (compareSeq(run.cursor, cursor) > 0) {
      const backlog = await this.reader.between(runId, cursor, run.cursor);
      this.deliver(sub, backlog);
    }
    const queued = sub.queued ?? [];
    sub.queued = null;
    this.deliver(sub, queued);
    this.start();
    this.startWatchdog();
    if (isNew) {
      await this.interrupt();
    }
    return unsubscribe;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.watchdog);
    await this.interrupt();
    this.blocking.disconnect();
    await this.loop?.catch(() => undefined);
  }

  private deliver(sub: Subscriber, events: RunEvent[]): void {
    const fresh = events.filter((e) => compareSeq(e.seq, sub.cursor) > 0);
    if (fresh.length === 0) {
      return;
    }
    sub.cursor = fresh[fresh.length - 1].seq;
    sub.sawDone ||= fresh.some((e) => e.event_type === 'done');
    sub.listener(fresh);
  }

  private startWatchdog(): void {
    if (this.watchdog || !this.options.endedRuns) {
      return;
    }
    this.watchdog = setInterval(() => {
      if (!this.checking) {
        this.checking = true;
        void this.checkEnded()
          .catch(() => undefined)
          .finally(() => {
            this.checking = false;
          });
      }
    }, this.options.watchdogMs ?? WATCHDOG_MS);
    this.watchdog.unref();
  }

  /**
   * Finds followed runs that ended while their streams stay silent: one query for all of them,
   * then, for a run seen ended on two ticks in a row (its `done` is written just after the
   * commit, so one tick could race it), the subscribers that have every stored event and no
   * `done` are told, once each.
   */
  private async checkEnded(): Promise<void> {
    if (this.runs.size === 0) {
      clearInterval(this.watchdog);
      this.watchdog = undefined;
      return;
    }
    const waiting = [...this.runs.entries()]
      .filter(([, r]) => [...r.subs].some((s) => s.onEndedQuietly && !s.sawDone))
      .map(([id]) => id);
    if (waiting.length === 0) {
      return;
    }
    const ended = await this.options.endedRuns!(waiting);
    for (const id of waiting) {
      const run = this.runs.get(id);
      if (!run) {
        continue;
      }
      run.endedSeen = ended.has(id) ? run.endedSeen + 1 : 0;
      if (run.endedSeen < 2) {
        continue;
      }
      const last = (await this.control.xrevrange(eventsKey(id), '+', '-', 'COUNT', 1)) as [string, unknown][];
      const lastSeq = last[0]?.[0];
      for (const sub of run.subs) {
        if (sub.onEndedQuietly && !sub.sawDone && (!lastSeq || compareSeq(sub.cursor, lastSeq) >= 0)) {
          const notify = sub.onEndedQuietly;
          sub.onEndedQuietly = undefined;
          notify();
        }
      }
    }
  }

  private start(): void {
    this.loop ??= this.run().finally(() => {
      this.loop = undefined;
    });
  }

  private async interrupt(): Promise<void> {
    if (this.blockingId !== undefined) {
      await this.control.client('UNBLOCK', this.blockingId).catch(() => undefined);
    }
  }

  private async run(): Promise<void> {
    this.blockingId = Number(await this.blocking.client('ID'));
    while (!this.closed && this.runs.size > 0) {
      const ids = [...this.runs.keys()];
      let res: [string, [string, string[]][]][] | null;
      try {
        res = (await this.blocking.xread(
          'COUNT',
          COUNT,
          'BLOCK',
          BLOCK_MS,
          'STREAMS',
          ...ids.map(eventsKey),
          ...ids.map((id) => this.runs.get(id)!.cursor),
        )) as typeof res;
      } catch {
        if (this.closed) {
          return;
        }
        await new Promise((r) => setTimeout(r, 500));
        continue;
      }
      for (const [key, rows] of res ?? []) {
        const runId = key.split(':')[2];
        const run = this.runs.get(runId);
        if (!run || rows.length === 0) {
          continue;
        }
        const events = rows.map(([id, fields]) => RunEventReader.toEvent(runId, id, fields));
        run.cursor = events[events.length - 1].seq;
        for (const sub of run.subs) {
          if (sub.queued) {
            sub.queued.push(...events);
          } else {
            this.deliver(sub, events);
          }
        }
      }
    }
  }
}
