import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { PeriodicJob } from '@switchyard/platform';
import { RunsRepository } from './runs.repository';
import { StartRunUseCase } from './start-run.usecase';

const POLL_MS = 1000;
const THREADS_PER_PASS = 100;

/**
 * Starts delayed runs (`after_seconds`) once their time has come: a queued run's start skips it
 * until `not_before`, and this pass starts the threads whose next run is due (each start locks its
 * thread, so replicas may race harmlessly; one held by its tenant's running cap stays queued and
 * starts when a slot frees).
 */
@Injectable()
export class DelayedRunsJob extends PeriodicJob {
  private readonly runs: RunsRepository;

  constructor(
    @Inject(DataSource) ds: DataSource,
    @Inject(StartRunUseCase) private readonly startRun: StartRunUseCase,
  ) {
    super();
    this.runs = new RunsRepository(ds);
  }

  protected intervalMs(): number {
    return POLL_MS;
  }

  protected async pass(): Promise<void> {
    const threads = await this.runs.dueDelayedThreads(THREADS_PER_PASS);
    for (const thread_id of threads) {
      await this.startRun.startNext(thread_id);
    }
  }
}
