import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  type Action,
  type CommittedDelta,
  type RunStartMessage,
  type RuntimeState,
  ZERO_USAGE,
} from '@switchyard/contracts';
import { NonRetryableMessageError } from '@switchyard/jetstream';
import { PgStateSource } from '@switchyard/persistence';
import { StateCache, applyDelta, emptyState, openTurnPatch } from '@switchyard/state';
import { RUN_COLUMNS, type RunRow } from './run-row';
import { RunStepper } from './run-stepper.service';
import { type StepEffects, noEffects } from './step-effects';
import { TaskOutbox } from './task-outbox.service';

/** The default agent's entry node (graph agents bring their own Begin component). */
const ENTRY = ['intake'];

/** `sy.run.start`: opens the thread's next turn with the `start` action and dispatches its `next`. */
@Injectable()
export class StartRunUseCase {
  private readonly logger = new Logger(StartRunUseCase.name);

  constructor(
    @Inject(DataSource) private readonly ds: DataSource,
    @Inject(StateCache) private readonly cache: StateCache,
    @Inject(PgStateSource) private readonly source: PgStateSource,
    @Inject(RunStepper) private readonly stepper: RunStepper,
    @Inject(TaskOutbox) private readonly outbox: TaskOutbox,
  ) {}

  async execute(msg: RunStartMessage): Promise<void> {
    let committed: RuntimeState | undefined;
    const effects = await this.ds.transaction(async (m): Promise<StepEffects> => {
      const [run] = (await m.query(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = $1 FOR UPDATE`, [
        msg.run_id,
      ])) as RunRow[];
      if (!run) {
        throw new NonRetryableMessageError(
          `sy.run.start names run ${msg.run_id}, which does not exist`,
          'unknown_run',
        );
      }
      if (run.status !== 'queued') {
        this.logger.log({ run_id: run.id, msg: `start ignored: run is already ${run.status}` });
        return noEffects(run.id);
      }
      if (run.cancel_requested) {
        return this.stepper.finish(m, run, null, noEffects(run.id), 0, 'cancelled', null);
      }
      const [thread] = (await m.query('SELECT version FROM threads WHERE id = $1 FOR UPDATE', [
        run.thread_id,
      ])) as {
        version: number;
      }[];
      const before =
        thread.version === 0
          ? emptyState(run.thread_id, run.id)
          : await this.source.load(run.thread_id, thread.version, m);
      const turn = before.action_history.length;
      const now = new Date().toISOString();
      const action: Action = {
        id: before.version + 1,
        node: 'start',
        preparation: '',
        summary: `Turn ${turn} started`,
        result: { prompt: run.input.prompt, agent_id: run.agent_id },
        usage: { ...ZERO_USAGE },
        next: ENTRY,
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
        }),
      };
      const state = applyDelta(before, delta);
      // The start delta's task id is the run id: unique, and a redelivered start is a no-op.
      await m.query(
        'INSERT INTO state_deltas (thread_id, version, task_id, run_id, node, delta) VALUES ($1, $2, $3, $4, $5, $6)',
        [run.thread_id, state.version, run.id, run.id, 'start', JSON.stringify(delta)],
      );
      await m.query('UPDATE threads SET version = $2, turns = turns + 1, active_run_id = $3 WHERE id = $1', [
        run.thread_id,
        state.version,
        run.id,
      ]);
      await m.query(`UPDATE runs SET status = 'running', started_at = now(), turn = $2 WHERE id = $1`, [
        run.id,
        turn,
      ]);
      const effects = await this.stepper.advance(m, { ...run, turn }, state, [action], 0);
      effects.events.unshift({ type: 'status', payload: { status: 'running' } });
      committed = state;
      return effects;
    });
    if (committed) {
      this.cache.put(committed);
    }
    await this.outbox.apply(effects);
  }
}
