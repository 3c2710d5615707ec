import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NodeDirectory, PeriodicJob, ServiceConfig } from '@switchyard/platform';
import { OrchestratorConfig } from './orchestrator.config';
import { RunFailureCode } from './orchestrator.exception';
import { reaperRedispatches } from './orchestrator.metrics';
import { taskTimeoutMs } from './run-row';
import { RunStepper } from './run-stepper.service';
import { freeLeakedSlots } from './running-slots.repository';
import { StartRunUseCase } from './start-run.usecase';
import { type StepEffects, noEffects } from './step-effects';
import {
  lockOverdueTask,
  lockRunRow,
  overdueTaskIds,
  redispatchTask,
  strandedQueuedThreads,
  taskRow,
} from './step.repository';
import { TaskOutbox } from './task-outbox.service';

// A queued run whose thread is idle this long is started by the sweep (its start was lost).
const STALE_QUEUED_MS = 5000;

/**
 * Nothing strands a run: a task whose deadline passed without a delta (lost message, dead worker)
 * is dispatched again with `attempt + 1`; after the last attempt the run fails naming the node.
 * Queued runs whose thread went idle without starting them are started.
 */
@Injectable()
export class TaskReaper extends PeriodicJob {
  constructor(
    @Inject(DataSource) private readonly ds: DataSource,
    @Inject(RunStepper) private readonly stepper: RunStepper,
    @Inject(TaskOutbox) private readonly outbox: TaskOutbox,
    @Inject(StartRunUseCase) private readonly startRun: StartRunUseCase,
    @Inject(OrchestratorConfig) private readonly config: OrchestratorConfig,
    @Inject(ServiceConfig) private readonly service: ServiceConfig,
    @Inject(NodeDirectory) private readonly directory: NodeDirectory,
  ) {
    super();
  }

  protected intervalMs(): number {
    return this.config.reaperIntervalMs;
  }

  protected async pass(): Promise<void> {
    await this.reapOverdueTasks();
    await this.freeLeakedSlots();
    await this.startStrandedRuns();
  }

  /**
   * Frees running slots (tenant_run_slots) held by runs that are not running — a run ended by an
   * orchestrator of an older release during a rolling upgrade, or any other path that missed its
   * slot — so a leak cannot lower a tenant's cap for good. A start or resume that has taken a slot
   * but not committed is not seen here (the row still reads free in this snapshot).
   */
  private async freeLeakedSlots(): Promise<void> {
    for (const tenant_id of await freeLeakedSlots(this.ds)) {
      this.logger.warn({ tenant_id, msg: 'freed running slots held by runs that are not running' });
      await this.startRun.startTenant(tenant_id);
    }
  }

  private async reapOverdueTasks(): Promise<void> {
    for (const id of await overdueTaskIds(this.ds)) {
      const effects = await this.ds.transaction(async (m): Promise<StepEffects> => {
        const task = await taskRow(m, id);
        const run = await lockRunRow(m, task.run_id);
        // Re-check under the run lock: the delta may have arrived, or another replica reaped it.
        const fresh = await lockOverdueTask(m, id);
        if (!fresh || run.status !== 'running') {
          return noEffects(task.run_id);
        }
        // The node's deadline as the step set it (the agent's, the node's own, or the default).
        const timeoutMs = taskTimeoutMs(
          run,
          task.node,
          await this.directory.lookup(task.node),
          this.service.env.SWITCHYARD_TASK_TIMEOUT_MS,
        );
        if (fresh.attempt >= this.config.taskMaxAttempts) {
          return this.stepper.finish(m, run, null, noEffects(run.id), run.steps, 'failed', {
            code: RunFailureCode.TaskTimeout,
            message: `node "${task.node}" did not answer task ${task.id} in ${fresh.attempt} attempts of ${timeoutMs} ms each`,
          });
        }
        const attempt = fresh.attempt + 1;
        reaperRedispatches.inc({ node: task.node });
        const deadline = new Date(Date.now() + timeoutMs);
        await redispatchTask(m, id, attempt, deadline);
        this.logger.warn({
          run_id: run.id,
          task_id: id,
          node: task.node,
          attempt,
          msg: 'task overdue: dispatched again',
        });
        return {
          runId: run.id,
          tasks: [{ ...task, attempt, deadline }],
          events: [
            {
              type: 'error',
              payload: {
                code: RunFailureCode.TaskTimeout,
                node: task.node,
                message: `node "${task.node}" did not answer within ${timeoutMs} ms; attempt ${attempt} of ${this.config.taskMaxAttempts}`,
              },
            },
          ],
          finished: false,
        };
      });
      await this.outbox.apply(effects);
      await this.startRun.continueAfter(effects);
    }
  }

  private async startStrandedRuns(): Promise<void> {
    for (const thread_id of await strandedQueuedThreads(this.ds, STALE_QUEUED_MS)) {
      // Runs held back by their tenant's running cap are queued on purpose: only a start that
      // goes through was a lost one.
      if ((await this.startRun.startNext(thread_id)) === 'started') {
        this.logger.warn({ thread_id, msg: 'started a queued run whose start was lost' });
      }
    }
  }
}
