import { LRUCache } from 'lru-cache';
import { type CommittedDelta, FORK_NODE } from '@switchyard/contracts';

interface Held {
  delta: CommittedDelta;
  /** Its JSON length, counted against the shipping budget. */
  bytes: number;
}

interface ThreadLog {
  /** Contiguous, ending at the newest version this process committed. */
  held: Held[];
  /** Per service: the version of the last task sent to it, and what that task shipped from. */
  sent: Map<string, { version: number; since: number }>;
  /**
   * `held` is the thread's whole log (from version 1, no fork in it): a service that has not seen
   * the thread gets all of it and replays it instead of reading Postgres.
   */
  whole: boolean;
}

/**
 * The last few committed deltas of each thread, as one orchestrator process committed them: they
 * travel with the next tasks so a node service's StateCache catches up without reading Postgres
 * (`StateCache.get`'s `recent`). A task carries the deltas its service has not seen from this
 * process — those after the version of the last task sent to that service — or, when none was
 * sent yet, only the newest (all of them when they are the thread's whole log: a young thread's
 * services then never read it). A step committed on top of a version this process does not hold
 * (another replica moved the thread meanwhile) starts the log afresh.
 */
export class RecentDeltas {
  private readonly lru: LRUCache<string, ThreadLog>;

  constructor(
    private readonly keep: number,
    private readonly maxBytes: number,
    maxThreads = 1000,
  ) {
    this.lru = new LRUCache({ max: maxThreads });
  }

  /** Records the deltas committed on top of `baseVersion`, each with its JSON length. */
  record(threadId: string, baseVersion: number, deltas: Held[]): void {
    const log = this.lru.get(threadId);
    if (log && log.held.at(-1)?.delta.action.id === baseVersion) {
      const held = [...log.held, ...deltas];
      log.held = held.slice(-this.keep);
      log.whole &&= held.length === log.held.length && !deltas.some(isFork);
    } else {
      const held = deltas.slice(-this.keep);
      this.lru.set(threadId, {
        held,
        sent: new Map(),
        whole: baseVersion === 0 && held.length === deltas.length && !deltas.some(isFork),
      });
    }
  }

  /**
   * The deltas to send with a task of `service` at `version` (the thread's newest): those the
   * service lacks, if they are held and fit the byte budget; none otherwise (the service then
   * reads them). Several tasks of one step for one service get the same deltas.
   */
  forTask(threadId: string, service: string, version: number): CommittedDelta[] {
    const log = this.lru.get(threadId);
    if (!log || log.held.at(-1)?.delta.action.id !== version) {
      return [];
    }
    const last = log.sent.get(service);
    const since = last?.version === version ? last.since : (last?.version ?? (log.whole ? 0 : version - 1));
    log.sent.set(service, { version, since });
    const wanted = log.held.filter((h) => h.delta.action.id > since);
    const bytes = wanted.reduce((sum, h) => sum + h.bytes, 0);
    if (wanted.length === 0 || wanted[0].delta.action.id !== since + 1 || bytes > this.maxBytes) {
      return [];
    }
    return wanted.map((h) => h.delta);
  }
}

/** A fork rewrites the thread: replaying the log across it is not the state (its load starts at its snapshot). */
const isFork = (h: Held): boolean => h.delta.action.node === FORK_NODE;
