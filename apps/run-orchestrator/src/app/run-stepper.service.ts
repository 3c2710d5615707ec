import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  type Action,
  type CommittedDelta,
  type NodeRegistration,
  type RunStatus,
  type RuntimeState,
  waitingForUserPayload,
} from '@switchyard/contracts';
import type { StepSql } from '@switchyard/persistence';
import { NodeDirectory, ServiceConfig } from '@switchyard/platform';
import { DeltaRejectedException, applyDelta, assertPatchAllowed } from '@switchyard/state';
import { type InlineChain, InlineNodes, type InlineRun, grantsOf } from './inline-nodes.service';
import { type RunFailure, RunFailureCode } from './orchestrator.exception';
import { nodesToResolve, routeStep } from './route-step';
import type { RunRow, TaskRow } from './run-row';
import { freeRunningSlot, retakeRunningSlot } from './running-slots.repository';
import { type StepEffects, actionEvent } from './step-effects';
import {
  type StepWrites,
  finishRun,
  inlineWrites,
  insertTasks,
  markRunWaiting,
  markTasksPublished,
  nameThread,
  releaseThread,
  writeStep,
} from './step.repository';

/**
 * Records what follows a step, inside the step's transaction: `routeStep` decides (from the
 * actions' `next` alone), this writes the tasks, the run's status and the events.
 */
@Injectable()
export class RunStepper {
  constructor(
    @Inject(NodeDirectory) private readonly directory: NodeDirectory,
    @Inject(ServiceConfig) private readonly config: ServiceConfig,
    @Inject(InlineNodes) private readonly inline: InlineNodes,
  ) {}

  /**
   * `writes`: the step's own statements, not yet run; on the common path they go out in the same
   * statement as the next tasks (one round trip for both). When the next tasks are all pure
   * components (InlineNodes), they run here, in this transaction, and the step after them is
   * advanced the same way — up to the chain's bounds, after which the next tasks go over NATS.
   */
  async advance(
    m: StepSql,
    run: RunRow,
    state: RuntimeState,
    actions: Action[],
    step: number,
    writes?: StepWrites,
    traceParent?: string,
    chain: InlineChain = { steps: 0, startedAt: performance.now() },
  ): Promise<StepEffects> {
    const effects: StepEffects = {
      runId: run.id,
      tasks: [],
      events: actions.map(actionEvent),
      finished: false,
    };
    const registrations = new Map<string, NodeRegistration | undefined>();
    for (const node of nodesToResolve(run, actions)) {
      const reg = await this.directory.lookup(node);
      registrations.set(node, reg);
      if (!reg) {
        break;
      }
    }
    const route = routeStep({
      run,
      state,
      actions,
      step,
      registrations,
      taskTimeoutMs: this.config.env.SWITCHYARD_TASK_TIMEOUT_MS,
      now: new Date(),
      newId: randomUUID,
    });
    if (traceParent && route.kind !== 'finish') {
      // The step's trace goes with its tasks (and with every later dispatch of them).
      for (const t of route.tasks) {
        t.trace_parent = traceParent;
      }
    }
    if (route.kind === 'next' && this.inline.mayChain(chain)) {
      const canvas = await this.inline.canvasFor(m, run, route.tasks);
      if (canvas) {
        // The step before the chain is written now (once per chain); the inline steps' rows are
        // collected and go out with the statement that ends the chain.
        if (writes) {
          await writeStep(m, writes);
        }
        const ran = await this.runInline(m, run, state, route, registrations, effects, canvas);
        if ('failed' in ran) {
          if (chain.pending) {
            await writeStep(m, inlineWrites(chain.pending, state));
          }
          return this.finish(m, run, null, effects, route.steps, 'failed', ran.failed);
        }
        const inner = await this.advance(
          m,
          { ...run, steps: route.steps },
          ran.state,
          ran.actions,
          route.tasks[0].step,
          undefined,
          traceParent,
          {
            steps: chain.steps + 1,
            startedAt: chain.startedAt,
            pending: {
              tasks: [...(chain.pending?.tasks ?? []), ...route.tasks],
              logs: [...(chain.pending?.logs ?? []), ...ran.logRows],
            },
          },
        );
        inner.events = [...effects.events, ...inner.events];
        inner.inlined = {
          state: inner.inlined?.state ?? ran.state,
          deltas: [...ran.deltas, ...(inner.inlined?.deltas ?? [])],
        };
        return inner;
      }
    }
    if (chain.pending) {
      // The chain ends here: its rows and the thread's final version, with what follows.
      writes = inlineWrites(chain.pending, state);
    }
    if (writes && route.kind !== 'next') {
      await writeStep(m, writes);
    }
    switch (route.kind) {
      case 'finish':
        return this.finish(m, run, state, effects, route.steps, route.status, route.error, route.output);
      case 'next':
        effects.tasks = route.tasks;
        await insertTasks(
          m,
          route.tasks,
          { runId: run.id, steps: route.steps, resumed: run.status === 'waiting' },
          writes,
        );
        if (run.status === 'waiting') {
          await retakeRunningSlot(m, run);
          effects.events.push({ type: 'status', payload: { status: 'running' } });
        }
        return effects;
      case 'waiting': {
        const { waiting } = route;
        effects.tasks = route.tasks;
        await insertTasks(m, [...route.tasks, ...route.humanTasks]);
        // Nothing to publish for them: the gateway answers on the user's behalf.
        await markTasksPublished(
          m,
          route.humanTasks.map((t) => t.id),
        );
        await markRunWaiting(m, run.id, route.steps, JSON.stringify(waiting));
        // A waiting run holds no task: its running slot is free for the tenant's next start, and
        // the runs its cap held back may start after the commit.
        await freeRunningSlot(m, run);
        effects.waiting = true;
        effects.continueTenant = run.tenant_id;
        effects.events.push(
          { type: 'status', payload: { status: 'waiting' } },
          { type: 'waiting_for_user', payload: waitingForUserPayload(waiting) },
        );
        return effects;
      }
    }
  }

  /**
   * Runs the step's tasks inline: each on the state at the step's start, their deltas applied in
   * dispatch order as the delta consumer applies a step's deltas (the patch allow-list included).
   * Answers the new state, the actions and the step's log rows (written when the chain ends), and
   * adds the node_started events; or why it failed.
   */
  private async runInline(
    m: StepSql,
    run: RunRow,
    state: RuntimeState,
    route: { tasks: TaskRow[] },
    registrations: ReadonlyMap<string, NodeRegistration | undefined>,
    effects: StepEffects,
    canvas: InlineRun,
  ): Promise<
    | {
        state: RuntimeState;
        actions: Action[];
        logRows: unknown[][];
        deltas: { delta: CommittedDelta; bytes: number }[];
      }
    | { failed: RunFailure }
  > {
    let next = state;
    const actions: Action[] = [];
    const deltas: { delta: CommittedDelta; bytes: number }[] = [];
    const logRows: unknown[][] = [];
    for (const task of route.tasks) {
      const delta = await this.inline.run(run, canvas, state, task);
      const action: Action = { ...delta.action, id: next.version + 1 };
      const applied: CommittedDelta = { action, ...(delta.patch ? { patch: delta.patch } : {}) };
      try {
        assertPatchAllowed(
          task.node,
          registrations.get(task.node)?.service,
          applied.patch ?? [],
          grantsOf(canvas, task.node),
        );
        next = applyDelta(next, applied);
      } catch (err) {
        if (err instanceof DeltaRejectedException) {
          return { failed: { code: RunFailureCode.DeltaRejected, message: err.message } };
        }
        throw err;
      }
      actions.push(action);
      const json = JSON.stringify(applied);
      deltas.push({ delta: applied, bytes: json.length });
      logRows.push([run.thread_id, next.version, task.id, run.id, task.node, json]);
      effects.events.push({
        type: 'node_started',
        payload: { node: task.node, task_id: task.id, attempt: 1 },
      });
    }
    return { state: next, actions, logRows, deltas };
  }

  /**
   * Ends the run in this transaction: status, output, usage, thread released. (Its state's
   * snapshot, when one is due, is written after the commit: SnapshotWriter.)
   */
  async finish(
    m: StepSql,
    run: RunRow,
    state: RuntimeState | null,
    effects: StepEffects,
    steps: number,
    status: Extract<RunStatus, 'succeeded' | 'failed' | 'cancelled'>,
    error: RunFailure | null,
    output: Record<string, unknown> | null = null,
  ): Promise<StepEffects> {
    const usage = state && run.turn !== null ? (state.usage[state.turn] ?? null) : null;
    await finishRun(m, {
      runId: run.id,
      status,
      errorJson: error ? JSON.stringify(error) : null,
      outputJson: output ? JSON.stringify(output) : null,
      usageJson: usage ? JSON.stringify(usage) : null,
      steps,
    });
    await releaseThread(m, run.thread_id, run.id);
    await freeRunningSlot(m, run);
    const title = output?.['title'];
    if (typeof title === 'string' && title) {
      // The first answer names the thread; later turns keep that name.
      await nameThread(m, run.thread_id, title);
    }
    if (error) {
      effects.events.push({ type: 'error', payload: { code: error.code, message: error.message } });
    }
    effects.events.push({ type: 'status', payload: { status } }, { type: 'done', payload: { status } });
    effects.finished = true;
    // After the commit: the thread's next queued run, and the tenant's runs its cap held back.
    effects.continueThread = run.thread_id;
    effects.continueTenant = run.tenant_id;
    effects.tasks = [];
    return effects;
  }
}
