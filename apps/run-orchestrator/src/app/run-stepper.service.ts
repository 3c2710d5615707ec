import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  ASK_USER,
  CLIENT_TOOL,
  CLIENT_TOOL_OUTPUTS_JSON_SCHEMA,
  type Action,
  type RuntimeState,
  type RunStatus,
  describeZodError,
  findToolCall,
  taskSubject,
} from '@switchyard/contracts';
import type { RunWaiting, WaitingClientCall } from '@switchyard/persistence';
import { NodeDirectory, ServiceConfig } from '@switchyard/platform';
import { type RunFailure, RunFailureCode } from './orchestrator.exception';
import type { RunRow, TaskRow } from './run-row';
import { type StepEffects, actionEvent } from './step-effects';

const END = 'end';
const HUMAN_DEADLINE_MS = 30 * 24 * 3600_000;

/**
 * Decides and records what follows a step, inside the step's transaction. It reads only the
 * actions' `next`: their union (deduplicated, in order) is the next step's tasks; an empty
 * union ends the run (failed when the last action carries an error).
 */
@Injectable()
export class RunStepper {
  constructor(
    @Inject(NodeDirectory) private readonly directory: NodeDirectory,
    @Inject(ServiceConfig) private readonly config: ServiceConfig,
  ) {}

  async advance(
    m: EntityManager,
    run: RunRow,
    state: RuntimeState,
    actions: Action[],
    step: number,
  ): Promise<StepEffects> {
    const effects: StepEffects = {
      runId: run.id,
      tasks: [],
      events: actions.map(actionEvent),
      finished: false,
    };
    const steps = run.steps + actions.length;
    const next = unionOfNext(actions);
    const last = actions[actions.length - 1];

    if (next.length === 0) {
      const answer = last.result as { answer?: unknown } | null;
      const output =
        answer && typeof answer === 'object' && 'answer' in answer
          ? (answer as Record<string, unknown>)
          : null;
      return this.finish(
        m,
        run,
        state,
        effects,
        steps,
        last.error ? 'failed' : 'succeeded',
        last.error ?? null,
        output,
      );
    }
    if (steps >= run.max_steps) {
      return this.finish(m, run, state, effects, steps, 'failed', {
        code: RunFailureCode.MaxStepsExceeded,
        message: `the run reached its limit of ${run.max_steps} steps`,
      });
    }

    const callCounts = new Map<string, number>();
    const humanTasks: TaskRow[] = [];
    const clientCalls: WaitingClientCall[] = [];
    let waitingFor: RunWaiting | undefined;
    const deadline = new Date(Date.now() + this.config.env.SWITCHYARD_TASK_TIMEOUT_MS);
    for (const [seq, node] of next.entries()) {
      const reg = await this.directory.lookup(node);
      if (!reg) {
        const asker = actions.find((a) => a.next.includes(node)) ?? last;
        return this.finish(m, run, state, effects, steps, 'failed', {
          code: RunFailureCode.UnknownNode,
          message: `action #${asker.id} (node "${asker.node}") asked for node "${node}", which no service registered`,
        });
      }
      const callIndex = callCounts.get(node) ?? 0;
      callCounts.set(node, callIndex + 1);
      if (reg.kind === 'human') {
        const id = randomUUID();
        const call = findToolCall(state, node, callIndex);
        if (node === CLIENT_TOOL.name) {
          const args = CLIENT_TOOL.argsSchema.safeParse(call?.args ?? {});
          if (!call || !args.success) {
            return this.finish(m, run, state, effects, steps, 'failed', {
              code: RunFailureCode.InvalidDelta,
              message: `${node} needs a function name and arguments${args.success ? '' : `: ${describeZodError(args.error)}`}`,
            });
          }
          clientCalls.push({ task_id: id, id: call.id, ...args.data });
        } else {
          const args = ASK_USER.argsSchema.safeParse(call?.args ?? {});
          if (!args.success) {
            return this.finish(m, run, state, effects, steps, 'failed', {
              code: RunFailureCode.InvalidDelta,
              message: `${node} needs a question: ${describeZodError(args.error)}`,
            });
          }
          waitingFor ??= {
            task_id: id,
            node,
            question: args.data.question,
            input_schema: args.data.input_schema ?? ASK_USER.defaultInputSchema,
            since: new Date().toISOString(),
          };
        }
        humanTasks.push({
          id,
          run_id: run.id,
          thread_id: run.thread_id,
          turn: state.turn,
          step: step + 1,
          seq,
          call_index: callIndex,
          node,
          subject: `human.${node}`,
          version: state.version,
          attempt: 1,
          // A person answers when they answer: the reaper leaves human tasks alone.
          deadline: new Date(Date.now() + HUMAN_DEADLINE_MS),
        });
        continue;
      }
      effects.tasks.push({
        id: randomUUID(),
        run_id: run.id,
        thread_id: run.thread_id,
        turn: state.turn,
        step: step + 1,
        seq,
        call_index: callIndex,
        node,
        subject: taskSubject(reg.service, node),
        version: state.version,
        attempt: 1,
        deadline,
      });
    }
    if (clientCalls.length) {
      // The client answers every call of the step in one request; ask_user (if any) keeps its question.
      waitingFor ??= {
        task_id: clientCalls[0].task_id,
        node: CLIENT_TOOL.name,
        question: `Run the client functions ${clientCalls.map((c) => c.name).join(', ')} and send their results.`,
        input_schema: CLIENT_TOOL_OUTPUTS_JSON_SCHEMA,
        since: new Date().toISOString(),
      };
      waitingFor.client_calls = clientCalls;
    }
    await insertTasks(
      m,
      [...effects.tasks, ...humanTasks],
      waitingFor ? undefined : { runId: run.id, steps, resumed: run.status === 'waiting' },
    );
    if (humanTasks.length > 0) {
      // Nothing to publish for them: the gateway answers on the user's behalf.
      await m.query('UPDATE run_tasks SET published_at = now() WHERE id = ANY($1::uuid[])', [
        humanTasks.map((t) => t.id),
      ]);
    }
    if (waitingFor) {
      await m.query(`UPDATE runs SET steps = $2, status = 'waiting', waiting = $3 WHERE id = $1`, [
        run.id,
        steps,
        JSON.stringify(waitingFor),
      ]);
      effects.events.push(
        { type: 'status', payload: { status: 'waiting' } },
        {
          type: 'waiting_for_user',
          payload: {
            question: waitingFor.question,
            input_schema: waitingFor.input_schema,
            ...(waitingFor.client_calls
              ? {
                  tool_calls: waitingFor.client_calls.map((c) => ({
                    id: c.id,
                    name: c.name,
                    arguments: c.arguments,
                  })),
                }
              : {}),
          },
        },
      );
    } else if (run.status === 'waiting') {
      effects.events.push({ type: 'status', payload: { status: 'running' } });
    }
    return effects;
  }

  /** Ends the run in this transaction: status, output, usage, snapshot, thread released. */
  async finish(
    m: EntityManager,
    run: RunRow,
    state: RuntimeState | null,
    effects: StepEffects,
    steps: number,
    status: Extract<RunStatus, 'succeeded' | 'failed' | 'cancelled'>,
    error: RunFailure | null,
    output: Record<string, unknown> | null = null,
  ): Promise<StepEffects> {
    const usage = state && run.turn !== null ? (state.usage[state.turn] ?? null) : null;
    await m.query(
      `UPDATE runs SET status = $2, error = $3, output = $4, usage = COALESCE($5, usage), steps = $6, finished_at = now(), waiting = NULL
       WHERE id = $1`,
      [
        run.id,
        status,
        error ? JSON.stringify(error) : null,
        output ? JSON.stringify(output) : null,
        usage ? JSON.stringify(usage) : null,
        steps,
      ],
    );
    await m.query('UPDATE threads SET active_run_id = NULL WHERE id = $1 AND active_run_id = $2', [
      run.thread_id,
      run.id,
    ]);
    const title = output?.['title'];
    if (typeof title === 'string' && title) {
      // The first answer names the thread; later turns keep that name.
      await m.query('UPDATE threads SET title = $2 WHERE id = $1 AND title IS NULL', [run.thread_id, title]);
    }
    if (state) {
      // Bounded load cost for the next turn: its state starts from here.
      await m.query(
        'INSERT INTO state_snapshots (thread_id, version, state) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
        [state.thread_id, state.version, JSON.stringify(state)],
      );
    }
    if (error) {
      effects.events.push({ type: 'error', payload: { code: error.code, message: error.message } });
    }
    effects.events.push({ type: 'status', payload: { status } }, { type: 'done', payload: { status } });
    effects.finished = true;
    effects.tasks = [];
    return effects;
  }
}

/** Writes the state as the thread's latest snapshot. */
export async function writeSnapshot(m: EntityManager, state: RuntimeState): Promise<void> {
  await m.query(
    'INSERT INTO state_snapshots (thread_id, version, state) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
    [state.thread_id, state.version, JSON.stringify(state)],
  );
  await m.query('UPDATE threads SET snapshot_version = GREATEST(snapshot_version, $2) WHERE id = $1', [
    state.thread_id,
    state.version,
  ]);
}

/**
 * The join rule: the union of the step's `next` lists, in order. A node named k times by one
 * action is k tasks (a fan-out of k calls); named by several actions it runs as often as the
 * action naming it most often asks, not once per action.
 */
export function unionOfNext(actions: readonly Pick<Action, 'next'>[]): string[] {
  const want = new Map<string, number>();
  for (const a of actions) {
    const counts = new Map<string, number>();
    for (const n of a.next) {
      if (n !== END) {
        counts.set(n, (counts.get(n) ?? 0) + 1);
      }
    }
    for (const [n, c] of counts) {
      want.set(n, Math.max(want.get(n) ?? 0, c));
    }
  }
  return [...want].flatMap(([n, c]) => Array<string>(c).fill(n));
}

/**
 * Inserts the next tasks and, in the same statement, records the run's step count (and its
 * return from `waiting`): one round trip.
 */
async function insertTasks(
  m: EntityManager,
  tasks: TaskRow[],
  run?: { runId: string; steps: number; resumed: boolean },
): Promise<void> {
  const cols = [
    'id',
    'run_id',
    'thread_id',
    'turn',
    'step',
    'seq',
    'call_index',
    'node',
    'subject',
    'version',
    'attempt',
    'deadline',
  ] as const;
  const values: unknown[] = run ? [run.runId, run.steps] : [];
  const offset = values.length;
  const rows = tasks.map((t, i) => {
    values.push(...cols.map((c) => t[c]));
    return `(${cols.map((_, j) => `$${offset + i * cols.length + j + 1}`).join(', ')}, 'pending')`;
  });
  const insert = `INSERT INTO run_tasks (${cols.join(', ')}, status) VALUES ${rows.join(', ')}`;
  if (!run) {
    await m.query(insert, values);
    return;
  }
  const status = run.resumed ? `, status = 'running', waiting = NULL` : '';
  await m.query(`WITH inserted AS (${insert}) UPDATE runs SET steps = $2${status} WHERE id = $1`, values);
}
