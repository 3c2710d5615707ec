import type { DataSource } from 'typeorm';
import { groupCommitFallbacks, groupCommitSteps } from './orchestrator.metrics';
import { type LockedWork, withLockedRead, withLockedReads } from '@switchyard/persistence';

interface Pending<T> extends LockedWork<T> {
  key: string;
  resolve(out: T): void;
  reject(err: unknown): void;
}

/**
 * Group commit across runs: the steps that arrive while `workers` transactions are in flight wait
 * and then go together, up to `maxBatch` in ONE transaction — one COMMIT and one WAL flush for
 * them all, and their publishes and acks leave together after it. A step that arrives when a
 * worker is free starts at once (alone, when nothing else waits); under load a step waits for the
 * group ahead of it. A group is two round trips to Postgres — `BEGIN` with all its locking reads,
 * then its writes with the COMMIT (withLockedReads) — and its steps' work runs one after another
 * in between (one slow step — a lock wait, a long inline chain — holds up its group).
 *
 * - One step per `key` (the run) per group, and none while another of its steps is in flight:
 *   a step reads its run's state from the cache, which learns the previous step only after its
 *   commit.
 * - A group takes its runs' locks in key order, so two groups (here or in another replica)
 *   cannot deadlock on them.
 * - A step that fails fails only itself: when any step of a group throws, the group rolls back
 *   and each of its steps runs again alone in its own transaction (as with `maxBatch` 1), where
 *   the bad one fails and the others commit. Steps are safe to run again: a step's work reads
 *   everything under its locks and does nothing outside the transaction. (Cheaper than a
 *   savepoint per step — a round trip and a subtransaction each — for what is rare.)
 */
export class StepCommitGroup {
  private queue: Pending<unknown>[] = [];
  private readonly inFlight = new Set<string>();
  private running = 0;

  constructor(
    private readonly ds: DataSource,
    private readonly maxBatch: number,
    private readonly workers: number,
  ) {}

  run<T>(key: string, step: LockedWork<T>): Promise<T> {
    if (this.maxBatch <= 1) {
      return withLockedRead(this.ds, step.lockSql, step.work, step.prepare);
    }
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ ...step, key, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.running < this.workers && this.queue.length > 0) {
      const group = this.take();
      if (group.length === 0) {
        return; // every waiting step's run has a step in flight: the commit that ends it pumps
      }
      this.running++;
      void this.commit(group).finally(() => {
        this.running--;
        for (const p of group) {
          this.inFlight.delete(p.key);
        }
        this.pump();
      });
    }
  }

  /** The oldest waiting steps of distinct runs with none in flight, in key (lock) order. */
  private take(): Pending<unknown>[] {
    const group: Pending<unknown>[] = [];
    const rest: Pending<unknown>[] = [];
    for (const p of this.queue) {
      if (group.length < this.maxBatch && !this.inFlight.has(p.key)) {
        this.inFlight.add(p.key);
        group.push(p);
      } else {
        rest.push(p);
      }
    }
    this.queue = rest;
    return group.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  private async commit(group: Pending<unknown>[]): Promise<void> {
    groupCommitSteps.observe(group.length);
    if (group.length === 1) {
      const [p] = group;
      await withLockedRead(this.ds, p.lockSql, p.work, p.prepare).then(p.resolve, p.reject);
      return;
    }
    let outs: unknown[];
    try {
      outs = await withLockedReads(this.ds, group);
    } catch {
      // Whichever step failed, it fails alone: each runs again in its own transaction — one at a
      // time, so a fallback holds no more connections than the group did.
      groupCommitFallbacks.inc();
      for (const p of group) {
        await withLockedRead(this.ds, p.lockSql, p.work, p.prepare).then(p.resolve, p.reject);
      }
      return;
    }
    group.forEach((p, i) => p.resolve(outs[i]));
  }
}
