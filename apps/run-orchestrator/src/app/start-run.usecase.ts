import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  type Action,
  type CommittedDelta,
  FORK_NODE,
  GRAPH_ENTRY_NODE,
  type RunFork,
  type RuntimeState,
  type StartResult,
  ZERO_USAGE,
} from '@switchyard/contracts';
import { NonRetryableMessageError } from '@switchyard/jetstream';
import {
  PgStateSource,
  type StepSql,
  pooledSql,
  withLockedRead,
  writeSnapshot,
} from '@switchyard/persistence';
import { SpanKind, inRemoteSpan } from '@switchyard/telemetry';
import {
  DeltaRejectedException,
  RecentDeltas,
  StateCache,
  applyDelta,
  emptyState,
  forkDelta,
  openTurnPatch,
} from '@switchyard/state';
import { stepCommitSeconds } from './orchestrator.metrics';
import type { RunRow } from './run-row';
import { OrchestratorConfig } from './orchestrator.config';
import { RunFailureCode } from './orchestrator.exception';
import { RunStepper } from './run-stepper.service';
import { type StepEffects, actionEvent, noEffects, shipRecentDeltas, sumBytes } from './step-effects';
import { TaskOutbox } from './task-outbox.service';
import { SnapshotWriter } from './snapshot-writer.service';
import { takeRunningSlot } from './running-slots.repository';
import {
  LOCK_THREAD,
  type LockedThreadRow,
  type StartableRunRow,
  branchThread,
  executeLockThread,
  insertDelta,
  lockNextQueuedRunSql,
  markRunStarted,
  nextStartableThreadOfTenant,
  openThreadTurn,
  threadOfRun,
} from './step.repository';

/** The default agent's entry node; a graph agent enters its canvas at its Begin component. */
const ENTRY = ['intake'];
const GRAPH_ENTRY = [GRAPH_ENTRY_NODE];
/** Runs one `startTenant` call starts at most (the rest start as those end, or by the reaper). */
const MAX_STARTS_PER_CALL = 64;

/** The tenant's running cap is full: the start is rolled back and the run stays queued. */
class HeldByCap extends Error {}

/** What opening a turn leaves for after it: the state, the start delta, the run's running slot. */
interface Opened {
  committed?: RuntimeState;
  /** The thread's newest snapshot: as its row was locked, or the fork's branch point written. */
  snapshotVersion: number;
  start?: { delta: CommittedDelta; bytes: number };
  /** The run to take a running slot for: its tenant's `max_running_runs` (else the default). */
  cap?: { tenantId: string; runId: string; slots: number };
}

/**
 * Starts the thread's next turn: the oldest queued run of the thread, once no other run of the
 * thread is active (so `enqueue`d and `interrupt`ing runs wait their turn). Opens the turn with
 * the `start` action and dispatches its `next`, in one transaction.
 */
@Injectable()
export class StartRunUseCase {
  private readonly logger = new Logger(StartRunUseCase.name);

  constructor(
    @Inject(DataSource) private readonly ds: DataSource,
    @Inject(StateCache) private readonly cache: StateCache,
    @Inject(RecentDeltas) private readonly recent: RecentDeltas,
    @Inject(PgStateSource) private readonly source: PgStateSource,
    @Inject(RunStepper) private readonly stepper: RunStepper,
    @Inject(TaskOutbox) private readonly outbox: TaskOutbox,
    @Inject(OrchestratorConfig) private readonly config: OrchestratorConfig,
    @Inject(SnapshotWriter) private readonly snapshots: SnapshotWriter,
  ) {}

  /**
   * `sy.run.start` for `runId`: starts the run, or leaves it queued behind its thread's active run.
   * `threadId`, the message's, goes straight to the thread's lock — the run is not read first, a
   * round trip less on every start's path; a start that starts nothing there is checked against
   * the run, so a message naming no run is still refused.
   */
  async execute(runId: string, threadId?: string): Promise<void> {
    if (threadId !== undefined && (await this.startNext(threadId)) !== 'idle') {
      return;
    }
    const ofRun = await threadOfRun(pooledSql(this.ds), runId);
    if (ofRun === undefined) {
      throw new NonRetryableMessageError(
        `sy.run.start names run ${runId}, which does not exist`,
        'unknown_run',
      );
    }
    if (ofRun !== threadId) {
      if (threadId !== undefined) {
        this.logger.warn({
          run_id: runId,
          msg: `sy.run.start names thread ${threadId}; the run's is ${ofRun}`,
        });
      }
      await this.startNext(ofRun);
    }
  }

  /** After a run ended: the thread's next queued run, then the runs its tenant's cap held back. */
  async continueAfter(effects: Pick<StepEffects, 'continueThread' | 'continueTenant'>): Promise<void> {
    if (effects.continueThread) {
      // Most runs end with nothing queued behind them. One read says so for the thread and its
      // tenant at once (the thread, free since the commit, is one of the tenant's threads), where
      // locking the thread to look took three round trips and the tenant's read a fourth. A run
      // queued after this read starts by its own start message, which finds the thread free (and,
      // should that message be lost, by the task reaper's sweep of idle threads).
      if (
        effects.continueTenant &&
        (await nextStartableThreadOfTenant(pooledSql(this.ds), effects.continueTenant)) === undefined
      ) {
        return;
      }
      await this.startNext(effects.continueThread);
    }
    if (effects.continueTenant) {
      await this.startTenant(effects.continueTenant);
    }
  }

  /**
   * Starts the tenant's queued runs on free threads while its running cap allows: interactive
   * runs first, then batch runs, oldest first within each.
   */
  async startTenant(tenantId: string): Promise<void> {
    for (let i = 0; i < MAX_STARTS_PER_CALL; i++) {
      const next = await nextStartableThreadOfTenant(pooledSql(this.ds), tenantId);
      if (next === undefined || (await this.startNext(next)) !== 'started') {
        return;
      }
    }
  }

  /**
   * Starts queued runs of the thread until one is running (cancelled ones end at once).
   * `held`: the thread's next run waits for its tenant's running cap (it starts when one of the
   * tenant's runs ends); `idle`: nothing to start (none queued, or the thread is busy).
   */
  async startNext(threadId: string): Promise<'started' | 'held' | 'idle'> {
    for (;;) {
      let held = false;
      const opened: Opened = { snapshotVersion: 0 };
      const endCommit = stepCommitSeconds.startTimer({ kind: 'start' });
      // The thread locked with BEGIN and its next queued run read after the lock, in one round
      // trip; the start's writes go with its COMMIT (deferWrite) or with the running slot's
      // statement before it.
      const effects = await withLockedRead(
        this.ds,
        (lit) => executeLockThread(lit(threadId)),
        async (m, [thread]: LockedThreadRow[], [run]): Promise<StepEffects | null> => {
          const effects = await this.openTurn(
            m,
            thread,
            threadId,
            run as StartableRunRow | undefined,
            opened,
          );
          // The run takes one of its tenant's running slots last, just before COMMIT (no slot
          // free: the start rolls back and the run stays queued).
          // (None for a run that ended, or went waiting — a fork continuing at a question.)
          if (
            effects &&
            !effects.finished &&
            !effects.waiting &&
            opened.cap &&
            !(await takeRunningSlot(m, opened.cap))
          ) {
            throw new HeldByCap();
          }
          return effects;
        },
        LOCK_THREAD,
        (lit) => lockNextQueuedRunSql(lit(threadId)),
      ).catch((err: unknown) => {
        if (err instanceof HeldByCap) {
          held = true;
          return null;
        }
        throw err;
      });
      endCommit();
      if (!effects) {
        return held ? 'held' : 'idle';
      }
      if (opened.committed) {
        // With the inline steps that followed the start, when there were any: the tasks after
        // them carry those deltas (as after any step), so their service need not read them back
        // (nor, on a new thread, anything: the start is its whole log).
        const state = effects.inlined?.state ?? opened.committed;
        const base = opened.committed.version - 1;
        const logged = opened.start ? [opened.start, ...(effects.inlined?.deltas ?? [])] : undefined;
        this.cache.put(state, logged && { from: base, bytes: sumBytes(logged) });
        this.snapshots.afterCommit(state, opened.snapshotVersion);
        if (logged) {
          shipRecentDeltas(effects, this.recent, state.thread_id, base, logged, state.version);
        }
      }
      await this.outbox.apply(effects);
      if (!effects.finished) {
        return 'started';
      }
      this.logger.log({
        run_id: effects.runId,
        msg: 'queued run ended before it started; starting the next',
      });
    }
  }

  /**
   * Opens the turn of the thread's oldest queued run in `m`: its start action, the run running,
   * its first tasks. Null when there is nothing to start; `out` gets the state and the tenant.
   * `run`: that run, locked (read after the thread's lock, in its round trip), if there is one.
   */
  private async openTurn(
    m: StepSql,
    thread: LockedThreadRow | undefined,
    threadId: string,
    run: StartableRunRow | undefined,
    out: Opened,
  ): Promise<StepEffects | null> {
    if (!thread) {
      return null; // the thread is gone (deleted with its runs)
    }
    out.snapshotVersion = thread.snapshot_version;
    if (thread.active_run_id && ['queued', 'running', 'waiting'].includes(thread.active_status ?? '')) {
      return null;
    }
    if (!run) {
      return null;
    }
    out.cap = {
      tenantId: run.tenant_id,
      runId: run.id,
      slots: run.tenant_cap ?? this.config.tenantMaxRunning,
    };
    if (run.cancel_requested) {
      const effects = await this.stepper.finish(m, run, null, noEffects(run.id), 0, 'cancelled', null);
      // Nothing was dispatched: the fence and the (empty) acknowledgement are for the record.
      effects.broadcastCancel = true;
      return effects;
    }
    if (run.tenant_running >= out.cap.slots) {
      // Full already (a count, so a hint only): no turn to open and roll back. What counts is
      // the slot the start takes at its end (takeRunningSlot).
      throw new HeldByCap();
    }
    // The thread's state at its locked version: the cache holds it when this orchestrator ran the
    // thread's last step (a chat's next turn); else it is read on this transaction's connection
    // (a miss must not wait for a second pooled connection while this one is held).
    let before =
      thread.version === 0
        ? emptyState(threadId, run.id)
        : (this.cache.peek(threadId, thread.version) ??
          (await this.source.load(threadId, thread.version, m)));
    let forked: Action | undefined;
    if (run.input.fork) {
      const branch = await this.branch(m, run, before, run.input.fork, out);
      if (!branch.state) {
        return branch.effects;
      }
      if (run.input.fork.mode !== 'turn') {
        out.committed = branch.state;
        return branch.effects;
      }
      before = branch.state;
      forked = branch.action;
    }
    const turn = before.action_history.length;
    const now = new Date().toISOString();
    const action: Action = {
      id: before.version + 1,
      node: 'start',
      preparation: '',
      summary: `Turn ${turn} started`,
      // Nodes read the turn's input from here: the client's tools and response format too.
      result: {
        prompt: run.input.prompt,
        agent_id: run.agent_id,
        chat_index: before.chat_history.length + (run.input.history?.length ?? 0),
        ...(run.input.client_tools?.length ? { client_tools: run.input.client_tools } : {}),
        ...(run.input.response_format ? { response_format: run.input.response_format } : {}),
      } satisfies StartResult,
      usage: { ...ZERO_USAGE },
      // The orchestrator knows where a kind of agent starts, nothing of what its nodes do.
      next: run.agent_kind === 'graph' ? GRAPH_ENTRY : ENTRY,
      started_at: now,
      finished_at: now,
      attempt: 1,
    };
    const delta: CommittedDelta = {
      action,
      patch: openTurnPatch({
        run_id: run.id,
        turn,
        prompt: run.input.prompt,
        origin_files: (run.input.files ?? []) as never,
        history: run.input.history,
      }),
    };
    const state = applyDelta(before, delta);
    const json = JSON.stringify(delta);
    out.start = { delta, bytes: json.length };
    // The start delta's task id is the run id: unique, so a turn is never opened twice.
    await insertDelta(m, {
      threadId,
      version: state.version,
      taskId: run.id,
      runId: run.id,
      node: 'start',
      json,
    });
    await openThreadTurn(m, threadId, state.version, run.id);
    await markRunStarted(m, run.id, turn);
    const effects = await this.advanceInTrace(m, { ...run, turn }, state, [action]);
    effects.events.unshift(
      { type: 'status', payload: { status: 'running' } },
      ...(forked ? [actionEvent(forked)] : []),
    );
    out.committed = state;
    return effects;
  }

  /** The run's first step, in the run's trace (the gateway's `run.create` span is its parent). */
  private advanceInTrace(
    m: StepSql,
    run: RunRow,
    state: RuntimeState,
    actions: Action[],
  ): Promise<StepEffects> {
    return inRemoteSpan(
      'run.start',
      run.trace_parent ?? undefined,
      () => ({ run_id: run.id, thread_id: run.thread_id, tenant_id: run.tenant_id }),
      (traceParent) => this.stepper.advance(m, run, state, actions, 0, undefined, traceParent),
      SpanKind.INTERNAL,
    );
  }

  /**
   * A run that forks its thread: the `fork` action takes the thread back to `fork.from_version`
   * (plus the edits) in a new version, snapshotted so later loads skip the abandoned branch. In
   * `continue` mode what was pending at the fork point is dispatched as any step's `next`; in
   * `record` mode the run ends there; in `turn` mode the caller opens a new turn after it.
   */
  private async branch(
    m: StepSql,
    run: RunRow,
    head: RuntimeState,
    fork: RunFork,
    out: Opened,
  ): Promise<{ state: RuntimeState | null; action?: Action; effects: StepEffects }> {
    const at = await this.source.load(run.thread_id, fork.from_version, m);
    let branched: ReturnType<typeof forkDelta>;
    try {
      branched = forkDelta({ head, at, runId: run.id, edits: fork.edits, next: fork.next });
    } catch (err) {
      if (!(err instanceof DeltaRejectedException)) {
        throw err;
      }
      const failure = { code: RunFailureCode.DeltaRejected, message: `the fork's edits: ${err.message}` };
      const effects = await this.stepper.finish(m, run, null, noEffects(run.id), 0, 'failed', failure);
      return { state: null, effects };
    }
    const { delta, state } = branched;
    await insertDelta(m, {
      threadId: run.thread_id,
      version: state.version,
      taskId: fork.task_id,
      runId: run.id,
      node: FORK_NODE,
      json: JSON.stringify(delta),
    });
    if (fork.from_version !== head.version) {
      // Loading the branch must not replay the versions it abandoned.
      await writeSnapshot(m, state, this.config.snapshotKeep);
      out.snapshotVersion = state.version;
    }
    await branchThread(m, run.thread_id, state.version, state.action_history.length, run.id);
    await markRunStarted(m, run.id, state.turn);
    const stepRun = { ...run, turn: state.turn };
    let effects: StepEffects;
    if (fork.mode === 'continue') {
      effects = await this.advanceInTrace(m, stepRun, state, [delta.action]);
    } else if (fork.mode === 'record') {
      const record: StepEffects = { ...noEffects(run.id), events: [actionEvent(delta.action)] };
      effects = await this.stepper.finish(m, stepRun, state, record, 1, 'succeeded', null);
    } else {
      effects = noEffects(run.id);
    }
    effects.events.unshift({ type: 'status', payload: { status: 'running' } });
    return { state, action: delta.action, effects };
  }
}
