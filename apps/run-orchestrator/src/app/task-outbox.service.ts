import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { DataSource } from 'typeorm';
import { RunEventReader, RunEventWriter } from '@switchyard/events';
import { type Action, type CommittedDelta, type TaskMessage, isTaskSubject } from '@switchyard/contracts';
import { JetStreamConnection } from '@switchyard/jetstream';
import { withTrace } from '@switchyard/telemetry';
import { CancelFence } from './cancel-fence.service';
import { OrchestratorConfig } from './orchestrator.config';
import { runsEnded, stepDispatchSeconds } from './orchestrator.metrics';
import type { TaskRow } from './run-row';
import { type StepEffects, actionEvent } from './step-effects';
import { markAttemptsPublished, staleUnpublishedTasks } from './step.repository';

const SWEEP_MS = 2000;
// A row younger than this is still being published by the process that committed it.
const STALE_MS = 3000;
// Published marks wait this long to go out together (far below STALE_MS): one UPDATE for many
// steps, and by then most tasks of a fast loop have answered — their step marked them already.
const MARK_BATCH_MS = 250;

/**
 * Carries out a committed step: run events to Redis, then the next tasks to JetStream
 * (`Nats-Msg-Id` = task id), each marked published. A sweeper re-publishes rows a crashed
 * process left unpublished; JetStream drops the duplicates.
 */
@Injectable()
export class TaskOutbox implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger(TaskOutbox.name);
  private timer?: NodeJS.Timeout;
  private marks: Pick<TaskRow, 'id' | 'attempt'>[] = [];
  private markTimer?: NodeJS.Timeout;

  constructor(
    @Inject(DataSource) private readonly ds: DataSource,
    @Inject(JetStreamConnection) private readonly nats: JetStreamConnection,
    @Inject(RunEventWriter) private readonly events: RunEventWriter,
    @Inject(RunEventReader) private readonly reader: RunEventReader,
    @Inject(CancelFence) private readonly fence: CancelFence,
    @Inject(OrchestratorConfig) private readonly config: OrchestratorConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.sweep().catch((err: Error) => this.logger.warn(`outbox sweep failed: ${err.message}`));
    }, SWEEP_MS);
    this.timer.unref();
  }

  /** The marks still waiting go out while the database is still there. */
  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.flushMarks();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
    clearTimeout(this.markTimer);
  }

  async apply(effects: StepEffects): Promise<void> {
    const end = stepDispatchSeconds.startTimer();
    if (effects.repairActions?.length) {
      await this.repair(effects.runId, effects.repairActions);
    }
    if (effects.broadcastCancel) {
      // The cancelled status event says who acknowledged the cancel, so it waits for them.
      const cancel = await this.fence.cancel(effects.runId);
      for (const e of effects.events) {
        if (e.type === 'status' && (e.payload as { status?: string }).status === 'cancelled') {
          e.payload = { ...(e.payload as object), cancel };
        }
      }
    }
    if (effects.events.length > 0 || effects.finished) {
      await this.events.appendMany(
        effects.runId,
        effects.events,
        effects.finished ? this.config.eventsTtlSeconds : undefined,
      );
    }
    await this.publish(effects.tasks, effects.deltas);
    end();
    if (effects.finished) {
      const last = [...effects.events].reverse().find((e) => e.type === 'status');
      runsEnded.inc({ status: (last?.payload as { status?: string } | undefined)?.status ?? 'unknown' });
    }
  }

  /** `deltas`: per task id, committed deltas ending at the task's version to send with it. */
  async publish(tasks: TaskRow[], deltas?: Map<string, CommittedDelta[]>): Promise<void> {
    if (tasks.length === 0) {
      return;
    }
    await Promise.all(
      tasks.map((t) => {
        const subject = t.subject;
        if (!isTaskSubject(subject)) {
          // Human tasks are marked published when they are created: reaching here is a bug.
          this.logger.error({
            run_id: t.run_id,
            task_id: t.id,
            subject,
            msg: 'not a task subject: not published',
          });
          return undefined;
        }
        const shipped = deltas?.get(t.id);
        const message: TaskMessage = {
          task_id: t.id,
          run_id: t.run_id,
          thread_id: t.thread_id,
          turn: t.turn,
          node: t.node,
          version: t.version,
          step: t.step,
          call_index: t.call_index,
          attempt: t.attempt,
          deadline: new Date(t.deadline).toISOString(),
          // In the trace the task was dispatched under, whoever publishes it (the step, the
          // sweep, the reaper).
          ...withTrace(t.trace_parent),
          ...(t.tenant_id ? { tenant_id: t.tenant_id, priority: t.priority ?? 'interactive' } : {}),
          ...(shipped?.length ? { deltas: shipped } : {}),
        };
        return this.nats.publish(subject, message, { msgId: `${t.id}:${t.attempt}` });
      }),
    );
    // Off the step's critical path, batched: should a mark be lost, the sweeper publishes the
    // tasks again and JetStream drops the duplicates.
    this.marks.push(...tasks.map((t) => ({ id: t.id, attempt: t.attempt })));
    this.markTimer ??= setTimeout(() => void this.flushMarks(), MARK_BATCH_MS);
  }

  private async flushMarks(): Promise<void> {
    clearTimeout(this.markTimer);
    this.markTimer = undefined;
    const marks = this.marks;
    this.marks = [];
    if (marks.length === 0) {
      return;
    }
    // Only the attempt that was published: a task the reaper dispatched again meanwhile stays
    // unpublished until its new attempt goes out. A task whose delta arrived was marked by its
    // step (the same row update). Rows a step holds locked now are skipped, not waited for: the
    // step marks them itself, and should it roll back, the sweep publishes the task again and
    // JetStream drops the duplicate. Waiting made a convoy: this statement kept the rows it had
    // updated locked while it waited, and the steps of those tasks queued behind it
    // (tools/bench/PROFILE.md, round 4).
    await markAttemptsPublished(
      this.ds,
      marks.map((m) => m.id),
      marks.map((m) => m.attempt),
    ).catch((err: Error) => this.logger.warn(`tasks published but not marked: ${err.message}`));
  }

  /** Appends the `action` events of these actions that the run's stream does not hold. */
  private async repair(runId: string, actions: Action[]): Promise<void> {
    const present = new Set<number>();
    for (const e of await this.reader.after(runId, null, 10_000)) {
      if (e.event_type === 'action') {
        present.add((e.payload as { id: number }).id);
      }
    }
    const missing = actions.filter((a) => !present.has(a.id));
    if (missing.length > 0) {
      this.logger.warn({
        run_id: runId,
        msg: 'writing action events lost with a crash',
        actions: missing.map((a) => a.id),
      });
      await this.events.appendMany(runId, missing.map(actionEvent));
    }
  }

  private async sweep(): Promise<void> {
    const rows = await staleUnpublishedTasks(this.ds, STALE_MS);
    if (rows.length > 0) {
      this.logger.warn({ msg: 're-publishing tasks left unpublished', tasks: rows.length });
      await this.publish(rows);
    }
  }
}
