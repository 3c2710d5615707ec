import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  type Action,
  type CommittedDelta,
  type DeltaMessage,
  type RuntimeState,
  type StateDelta,
  isTerminal,
} from '@switchyard/contracts';
import { traceIdsOf } from '@switchyard/telemetry';
import {
  DeltaRejectedException,
  RecentDeltas,
  StateCache,
  applyDelta,
  assertPatchAllowed,
  patchesOtherOutputs,
} from '@switchyard/state';
import { InlineNodes } from './inline-nodes.service';
import { stepCommitSeconds } from './orchestrator.metrics';
import { RunFailureCode } from './orchestrator.exception';
import type { RunRow } from './run-row';
import { type StepSql, USAGE_WRITE, gatherWrite } from '@switchyard/persistence';
import { RunStepper } from './run-stepper.service';
import { OrchestratorConfig } from './orchestrator.config';
import { StartRunUseCase } from './start-run.usecase';
import { type StepEffects, noEffects, shipRecentDeltas, sumBytes } from './step-effects';
import { StepCommitGroup } from './group-commit';
import {
  LOCK_STEP,
  actionsSinceTasks,
  appliedStepWrites,
  executeLockStep,
  markTaskArrived,
} from './step.repository';
import { TaskOutbox } from './task-outbox.service';
import { SnapshotWriter } from './snapshot-writer.service';

interface StepTaskRow {
  id: string;
  step: number;
  node: string;
  status: 'pending' | 'arrived' | 'applied';
  attempt: number;
  delta: StateDelta | null;
}

/** The run, its thread's versions and the delta's whole step, as `LOCK_STEP` reads them. */
type LockedStep = RunRow & { thread_version: number; snapshot_version: number; step_tasks: StepTaskRow[] };

/**
 * `sy.delta.<service>`: records a node's delta; when every task of the step has answered,
 * applies the step's deltas in dispatch order, in one transaction with the task bookkeeping and
 * the next tasks (run row locked). A redelivered or late delta changes nothing.
 */
@Injectable()
export class ApplyDeltaUseCase {
  private readonly logger = new Logger(ApplyDeltaUseCase.name);

  constructor(
    @Inject(StateCache) private readonly cache: StateCache,
    @Inject(RecentDeltas) private readonly recent: RecentDeltas,
    @Inject(RunStepper) private readonly stepper: RunStepper,
    @Inject(TaskOutbox) private readonly outbox: TaskOutbox,
    @Inject(StartRunUseCase) private readonly startRun: StartRunUseCase,
    @Inject(OrchestratorConfig) private readonly config: OrchestratorConfig,
    @Inject(StepCommitGroup) private readonly group: StepCommitGroup,
    @Inject(InlineNodes) private readonly inline: InlineNodes,
    @Inject(SnapshotWriter) private readonly snapshots: SnapshotWriter,
  ) {}

  /** `traceParent`: the step's trace, sent on with its tasks. */
  async execute(msg: DeltaMessage, service: string, traceParent?: string): Promise<void> {
    let committed: { state: RuntimeState; snapshotVersion: number } | undefined;
    let logged: { base: number; deltas: { delta: CommittedDelta; bytes: number }[] } | undefined;
    const endCommit = stepCommitSeconds.startTimer({ kind: 'delta' });
    // Committed with the steps of other runs that arrive meanwhile (StepCommitGroup): the work
    // may run twice (again alone when another step of its group failed), so it writes nothing
    // outside the transaction; what it leaves for after the commit is set afresh each time.
    const effects = await this.group.run(msg.run_id, {
      lockSql: (lit) => executeLockStep(lit(msg.run_id), lit(msg.task_id)),
      prepare: LOCK_STEP,
      work: async (m, lockedRows: LockedStep[]): Promise<StepEffects> => {
        committed = undefined;
        logged = undefined;
        // The step's log lines carry its trace (no span is current here: see runs.consumer).
        const log = { run_id: msg.run_id, task_id: msg.task_id, node: msg.node, ...traceIdsOf(traceParent) };
        // The task's model calls, written with the step whatever becomes of its delta (late,
        // duplicate, rejected, its run deleted since: the calls were made); each once
        // (USAGE_WRITE), with the COMMIT.
        await gatherWrite(m, USAGE_WRITE, msg.usage_calls ?? []);
        const [locked] = lockedRows;
        if (!locked) {
          // Its run was deleted (with its thread) while the task was at work: nothing to step.
          this.logger.error({ ...log, msg: `delta for run ${msg.run_id}, which does not exist: discarded` });
          return noEffects(msg.run_id);
        }
        const { step_tasks: stepTasks, ...run } = locked;
        if (isTerminal(run.status)) {
          this.logger.log({ ...log, msg: `late delta discarded: run is ${run.status}` });
          return noEffects(run.id);
        }
        if (run.cancel_requested) {
          // Cancel wins even when its message is late or lost: the flag in Postgres fences the step.
          const effects = await this.stepper.finish(
            m,
            run,
            null,
            noEffects(run.id),
            run.steps,
            'cancelled',
            null,
          );
          effects.broadcastCancel = true;
          return effects;
        }
        const task = stepTasks.find((t) => t.id === msg.task_id);
        if (!task) {
          return this.fail(m, run, `delta names task ${msg.task_id}, which this run never dispatched`);
        }
        if (task.status !== 'pending') {
          this.logger.log({ ...log, msg: 'duplicate delta acknowledged and ignored' });
          if (task.status === 'applied') {
            // Applied, but its acknowledgement was lost (a crash between commit and ack): the step's
            // events may not have reached Redis either — nor those of the inline steps committed
            // with it; the outbox writes the ones that are missing (it skips those present).
            const repairActions = await actionsSinceTasks(
              m,
              stepTasks.map((t) => t.id),
              run.id,
            );
            return { ...noEffects(run.id), repairActions };
          }
          return noEffects(run.id);
        }
        if (task.node !== msg.node || msg.delta.action.node !== msg.node) {
          return this.fail(
            m,
            run,
            `delta for task ${task.id} of node "${task.node}" claims node "${msg.delta.action.node}"`,
          );
        }
        try {
          const patch = msg.delta.patch ?? [];
          // A canvas's VariableAssigner may set other components' outputs: the canvas says so.
          const grants = patchesOtherOutputs(msg.node, patch)
            ? await this.inline.grantsFor(m, run.id, msg.node)
            : {};
          assertPatchAllowed(msg.node, service, patch, grants);
        } catch (err) {
          return this.reject(m, run, err);
        }
        if (stepTasks.some((t) => t.id !== task.id && t.status === 'pending')) {
          // Fan-out: the step ends when its last delta arrives; keep this one until then.
          await markTaskArrived(m, task.id, JSON.stringify(msg.delta));
          return noEffects(run.id);
        }
        stepTasks.find((t) => t.id === task.id)!.delta = msg.delta;

        let state = await this.cache.get(run.thread_id, run.thread_version);
        const actions: Action[] = [];
        const rows: unknown[][] = [];
        const deltas: { delta: CommittedDelta; bytes: number }[] = [];
        try {
          for (const t of stepTasks) {
            const delta = t.delta!;
            // A delta answering the first dispatch may arrive after the reaper sent the task again:
            // the action still shows how many dispatches the task took.
            const action: Action = {
              ...delta.action,
              id: state.version + 1,
              attempt: Math.max(delta.action.attempt, t.attempt),
            };
            const applied = { action, ...(delta.patch ? { patch: delta.patch } : {}) };
            state = applyDelta(state, applied);
            actions.push(action);
            const json = JSON.stringify(applied);
            deltas.push({ delta: applied, bytes: json.length });
            rows.push([run.thread_id, state.version, t.id, run.id, t.node, json]);
          }
        } catch (err) {
          return this.reject(m, run, err);
        }
        // The deltas go to the log, the task rows keep only their bookkeeping, the thread's version
        // moves; the stepper sends these with the next tasks, in one statement.
        const writes = appliedStepWrites(run.id, task.step, state.version, rows);
        committed = { state, snapshotVersion: run.snapshot_version };
        logged = { base: run.thread_version, deltas };
        return this.stepper.advance(m, run, state, actions, task.step, writes, traceParent);
      },
    });
    endCommit();
    if (effects.inlined && committed && logged) {
      // Inline steps ran after this one in the same transaction: the state and the log go on.
      committed.state = effects.inlined.state;
      logged.deltas.push(...effects.inlined.deltas);
    }
    if (committed) {
      const { state, snapshotVersion } = committed;
      this.cache.put(state, logged && { from: logged.base, bytes: sumBytes(logged.deltas) });
      this.snapshots.afterCommit(state, snapshotVersion);
      if (logged) {
        shipRecentDeltas(effects, this.recent, state.thread_id, logged.base, logged.deltas, state.version);
      }
    }
    await this.outbox.apply(effects);
    await this.startRun.continueAfter(effects);
  }

  private reject(m: StepSql, run: RunRow, err: unknown): Promise<StepEffects> {
    if (err instanceof DeltaRejectedException) {
      return this.stepper.finish(m, run, null, noEffects(run.id), run.steps, 'failed', {
        code: RunFailureCode.DeltaRejected,
        message: err.message,
      });
    }
    throw err;
  }

  private fail(m: StepSql, run: RunRow, message: string): Promise<StepEffects> {
    return this.stepper.finish(m, run, null, noEffects(run.id), run.steps, 'failed', {
      code: RunFailureCode.InvalidDelta,
      message,
    });
  }
}
