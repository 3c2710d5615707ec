import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { FileStore, deleteThreads, kyselyOfManager } from '@switchyard/persistence';
import { PeriodicJob } from '@switchyard/platform';
import { RunsRepository } from './runs.repository';

// How often the orchestrator sweeps, and how much a statement takes.
const SWEEP_INTERVAL_MS = 2000;
const THREADS_PER_PASS = 200;
const ITEMS_PER_STATEMENT = 1000;

/**
 * Deletes what LangGraph clients asked to go once done: the threads made for stateless runs
 * (`on_completion: "delete"`, the default) once every run of theirs has ended — their versions,
 * snapshots, receipts, then the thread (its runs, tasks and files go with it by cascade; a thread
 * that waits for an answer is kept until it ends) — and the store's expired items (reads skip
 * them at once; the sweep frees their rows), and the objects of files whose rows went (any cascade
 * records them in `file_objects_gone`). Replicas share the work (`SKIP LOCKED`); run events
 * expire from Redis by themselves.
 */
@Injectable()
export class ExpirySweepJob extends PeriodicJob {
  private readonly runs: RunsRepository;

  constructor(
    @Inject(DataSource) private readonly ds: DataSource,
    @Inject(FileStore) private readonly files: FileStore,
  ) {
    super();
    this.runs = new RunsRepository(ds);
  }

  protected intervalMs(): number {
    return SWEEP_INTERVAL_MS;
  }

  protected async pass(): Promise<void> {
    await this.sweepThreads();
    await this.sweepStore();
    await this.sweepFileObjects();
  }

  /** Deletes the objects of files whose rows went (any cascade); a failure is logged and retried next pass. */
  async sweepFileObjects(): Promise<number> {
    const { deleted, failed } = await this.files.sweepObjects();
    if (deleted) {
      this.logger.log({ msg: 'file objects deleted', count: deleted });
    }
    for (const f of failed) {
      this.logger.warn({
        msg: 'file object not deleted; tried again next pass',
        object: f.objectKey,
        error: f.error,
      });
    }
    return deleted;
  }

  /** Deletes the store's expired items; answers how many went. */
  async sweepStore(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.runs.deleteExpiredStoreItems(ITEMS_PER_STATEMENT);
      total += n;
      if (n < ITEMS_PER_STATEMENT) {
        return total;
      }
    }
  }

  /** Deletes the ended stateless runs' threads; answers how many went. */
  async sweepThreads(): Promise<number> {
    return this.ds.transaction(async (m) => {
      const ids = await this.runs.lockDoneStatelessThreads(await kyselyOfManager(m), THREADS_PER_PASS);
      if (ids.length === 0) {
        return 0;
      }
      await deleteThreads(m, ids);
      this.logger.log({ msg: 'stateless threads deleted', count: ids.length });
      return ids.length;
    });
  }
}
