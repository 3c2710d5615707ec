import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  type RunCancelMessage,
  type RunFailMessage,
  isTerminal,
  uncheckedRunErrorCode,
} from '@switchyard/contracts';
import { kyselyOfManager } from '@switchyard/persistence';
import type { RunFailure } from './orchestrator.exception';
import { RunStepper } from './run-stepper.service';
import { RunsRepository } from './runs.repository';
import { noEffects } from './step-effects';
import { StartRunUseCase } from './start-run.usecase';
import { TaskOutbox } from './task-outbox.service';

/**
 * Ends a run from outside its steps: `sy.run.fail` (a service could not read a message of the
 * run) and `sy.run.cancel` (the gateway asked). Late deltas are then discarded by status.
 */
@Injectable()
export class EndRunUseCase {
  private readonly logger = new Logger(EndRunUseCase.name);
  private readonly runs: RunsRepository;

  constructor(
    @Inject(DataSource) private readonly ds: DataSource,
    @Inject(RunStepper) private readonly stepper: RunStepper,
    @Inject(TaskOutbox) private readonly outbox: TaskOutbox,
    @Inject(StartRunUseCase) private readonly startRun: StartRunUseCase,
  ) {
    this.runs = new RunsRepository(ds);
  }

  fail(msg: RunFailMessage): Promise<void> {
    return this.end(msg.run_id, 'failed', { code: uncheckedRunErrorCode(msg.code), message: msg.message });
  }

  cancel(msg: RunCancelMessage): Promise<void> {
    return this.end(msg.run_id, 'cancelled', null);
  }

  private async end(runId: string, status: 'failed' | 'cancelled', error: RunFailure | null): Promise<void> {
    const effects = await this.ds.transaction(async (m) => {
      const run = await this.runs.lockRun(await kyselyOfManager(m), runId);
      if (!run || isTerminal(run.status)) {
        this.logger.log({ run_id: runId, msg: `${status} ignored: run is ${run ? run.status : 'unknown'}` });
        return noEffects(runId);
      }
      const effects = await this.stepper.finish(m, run, null, noEffects(runId), run.steps, status, error);
      effects.broadcastCancel = true;
      return effects;
    });
    await this.outbox.apply(effects);
    await this.startRun.continueAfter(effects);
  }
}
