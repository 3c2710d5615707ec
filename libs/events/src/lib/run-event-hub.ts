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
  /**
   * Runs one blocking read follows at most; more runs open more reads (each on a connection of
   * its own). Every wake of a read re-sends its runs' keys and cursors and Redis looks at each of
   * its streams, so a read's cost per event grows with its runs: shards keep it bounded.
   */
  runsPerReader?: number;
}

const BLOCK_MS = 2000;
const COUNT = 500;
const WATCHDOG_MS = 5000;
const RUNS_PER_READER = 16;

/** One blocking `XREAD` loop on a connection of its own, for a shard of the followed runs. */
interface Reader {
  blocking: Redis;
  runs: Set<string>;
  blockingId?: number;
  loop?: Promise<void>;
  /** Left without runs while another reader stays: its loop ends and its connection closes. */
  retired: boolean;
}

interface FollowedRun {
  cursor: string;
  subs: Set<Subscriber>;
  /** Consecutive watchdog ticks that found the run ended. */
  endedSeen: number;
  reader: Reader;
}

/**
 * Live run events for many subscribers over few blocking Redis connections: one `XREAD BLOCK`
 * loop reads the streams of up to `runsPerReader` followed runs and fans the events out to all
 * their subscribers, so a gateway holding thousands of SSE clients holds a connection per shard of
 * runs, not per client — and a wake costs O(the shard), not O(every run the gateway follows). A new
 * run interrupts its shard's blocking read (`CLIENT UNBLOCK`) to be included at once. Likewise one
 * watchdog per hub (not per client) notices runs that ended without their `done` reaching Redis.
 */
export class RunEventHub {
  private readonly runs = new Map<string, FollowedRun>();
  private readonly readers: Reader[] = [];
  private readonly reader: RunEventReader;
  private closed = false;
  private watchdog?: NodeJS.Timeout;
  private checking = false;

  /** `control` runs ordinary commands; `blocking` opens a connection of the hub's own for each read. */
  constructor(
    private readonly control: Redis,
    private readonly blocking: () => Redis,
    private readonly options: RunEventHubOptions = {},
  ) {
    this.reader = new RunEventReader(control);
  }

  /** Followed runs, subscribers and blocking reads, for metrics. */
  get size(): { runs: number; subscribers: number; readers: number } {
    let subscribers = 0;
    for (const r of this.runs.values()) {
      subscribers += r.subs.size;
    }
    return { runs: this.runs.size, subscribers, readers: this.readers.length };
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
      const reader = this.readerWithRoom();
      run = { cursor, subs: new Set(), endedSeen: 0, reader };
      this.runs.set(runId, run);
      reader.runs.add(runId);
    }
    run.subs.add(sub);
    const unsubscribe = () => {
      const r = this.runs.get(runId);
      r?.subs.delete(sub);
      if (r && r.subs.size === 0) {
        this.runs.delete(runId);
        this.unfollow(runId, r.reader);
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
    this.start(run.reader);
    this.startWatchdog();
    if (isNew) {
      await this.interrupt(run.reader);
    }
    return unsubscribe;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.watchdog);
    const readers = this.readers.splice(0);
    await Promise.all(readers.map((r) => this.interrupt(r)));
    for (const r of readers) {
      r.blocking.disconnect();
    }
    await Promise.all(readers.map((r) => r.loop?.catch(() => undefined)));
  }

  /** The first read with room for another run, or a new one. */
  private readerWithRoom(): Reader {
    const max = Math.max(1, this.options.runsPerReader ?? RUNS_PER_READER);
    let reader = this.readers.find((r) => r.runs.size < max);
    if (!reader) {
      reader = { blocking: this.blocking(), runs: new Set(), retired: false };
      this.readers.push(reader);
    }
    return reader;
  }

  /** A run nobody follows leaves its read; an empty read goes too, unless it is the last. */
  private unfollow(runId: string, reader: Reader): void {
    reader.runs.delete(runId);
    if (reader.runs.size === 0 && this.readers.length > 1) {
      this.readers.splice(this.readers.indexOf(reader), 1);
      reader.retired = true;
      if (reader.loop) {
        void this.interrupt(reader);
      } else {
        reader.blocking.disconnect();
      }
    }
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

  private start(reader: Reader): void {
    reader.loop ??= this.run(reader).finally(() => {
      reader.loop = undefined;
      if (reader.retired) {
        reader.blocking.disconnect();
      }
    });
  }

  private async interrupt(reader: Reader): Promise<void> {
    if (reader.blockingId !== undefined) {
      await this.control.client('UNBLOCK', reader.blockingId).catch(() => undefined);
    }
  }

  private async run(reader: Reader): Promise<void> {
    reader.blockingId ??= Number(await reader.blocking.client('ID'));
    while (!this.closed && !reader.retired && reader.runs.size > 0) {
      // A run leaves `reader.runs` when it leaves `this.runs` (unfollow): every id has its cursor.
      const ids = [...reader.runs];
      let res: [string, [string, string[]][]][] | null;
      try {
        res = (await reader.blocking.xread(
          'COUNT',
          COUNT,
          'BLOCK',
          BLOCK_MS,
          'STREAMS',
          ...ids.map(eventsKey),
          ...ids.map((id) => this.runs.get(id)!.cursor),
        )) as typeof res;
      } catch {
        if (this.closed || reader.retired) {
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
