import {
  ASK_USER,
  type BreakpointStop,
  CLIENT_TOOL,
  FORK_NODE,
  CLIENT_TOOL_OUTPUTS_JSON_SCHEMA,
  type Action,
  type NodeRegistration,
  type RuntimeState,
  describeZodError,
  findToolCall,
  taskSubject,
  breaksAt,
  unionOfNext,
  uncheckedRunErrorCode,
} from '@switchyard/contracts';
import type { RunWaiting, WaitingClientCall } from '@switchyard/persistence';
import { type RunFailure, RunFailureCode } from './orchestrator.exception';
import { type RunRow, type TaskRow, taskTimeoutMs } from './run-row';

const HUMAN_DEADLINE_MS = 30 * 24 * 3600_000;

/** What follows a step: the run ends, its next tasks run, or it waits for a person or the client. */
export type StepRoute =
  | {
      kind: 'finish';
      steps: number;
      status: 'succeeded' | 'failed';
      error: RunFailure | null;
      output: Record<string, unknown> | null;
    }
  | { kind: 'next'; steps: number; tasks: TaskRow[] }
  | {
      kind: 'waiting';
      steps: number;
      /** Tasks a service runs meanwhile (published as usual). */
      tasks: TaskRow[];
      /** Tasks the gateway answers on the user's or the client's behalf (never published). */
      humanTasks: TaskRow[];
      waiting: RunWaiting;
    };

export interface StepInput {
  run: Pick<
    RunRow,
    'id' | 'thread_id' | 'steps' | 'max_steps' | 'tenant_id' | 'priority' | 'node_timeouts'
  > & {
    input?: Pick<RunRow['input'], 'breakpoints'>;
  };
  /** The state after the step's deltas. */
  state: RuntimeState;
  /** The step's actions, in dispatch order (at least one). */
  actions: readonly Action[];
  step: number;
  /**
   * The registrations of the nodes `nodesToResolve` names, in its order; it may stop at the first
   * unknown one (absent or undefined).
   */
  registrations: ReadonlyMap<string, NodeRegistration | undefined>;
  /** SWITCHYARD_TASK_TIMEOUT_MS: a task's deadline where neither the agent nor the node sets one. */
  taskTimeoutMs: number;
  now: Date;
  newId: () => string;
}

/**
 * The nodes whose registrations `routeStep` needs, in the order it reads them: none when the step
 * ends the run.
 */
export function nodesToResolve(
  run: Pick<RunRow, 'steps' | 'max_steps'>,
  actions: readonly Pick<Action, 'next'>[],
): string[] {
  const next = unionOfNext(actions);
  return next.length === 0 || run.steps + actions.length >= run.max_steps ? [] : [...new Set(next)];
}

/**
 * The routing decision of a step, pure: it reads only the actions' `next`. Their union
 * (deduplicated, in order) is the next step's tasks; an empty union ends the run (failed when the
 * last action carries an error); `ask_user` and `client_tool` tasks make the run wait.
 */
export function routeStep(input: StepInput): StepRoute {
  const { run, state, actions, step, now } = input;
  const steps = run.steps + actions.length;
  const next = unionOfNext(actions);
  const last = actions[actions.length - 1];
  const fail = (error: RunFailure): StepRoute => ({
    kind: 'finish',
    steps,
    status: 'failed',
    error,
    output: null,
  });

  if (next.length === 0) {
    const output = last.error
      ? (answerOf(last) ?? null)
      : (answerOf(last) ?? latestAnswer(state.action_history[state.turn] ?? []));
    return last.error
      ? {
          kind: 'finish',
          steps,
          status: 'failed',
          error: { ...last.error, code: uncheckedRunErrorCode(last.error.code) },
          output,
        }
      : { kind: 'finish', steps, status: 'succeeded', error: null, output };
  }
  if (steps >= run.max_steps) {
    return fail({
      code: RunFailureCode.MaxStepsExceeded,
      message: `the run reached its limit of ${run.max_steps} steps`,
    });
  }
  const stop = breakpointStop(run.input?.breakpoints, actions, next);
  if (stop) {
    // The run ends here with `next` pending at the thread's head: a run with no input goes on.
    return { kind: 'finish', steps, status: 'succeeded', error: null, output: { breakpoint: stop } };
  }

  const callCounts = new Map<string, number>();
  const tasks: TaskRow[] = [];
  const humanTasks: TaskRow[] = [];
  const clientCalls: WaitingClientCall[] = [];
  let waiting: RunWaiting | undefined;
  for (const [seq, node] of next.entries()) {
    const reg = input.registrations.get(node);
    if (!reg) {
      const asker = actions.find((a) => a.next.includes(node)) ?? last;
      return fail({
        code: RunFailureCode.UnknownNode,
        message: `action #${asker.id} (node "${asker.node}") asked for node "${node}", which no service registered`,
      });
    }
    const callIndex = callCounts.get(node) ?? 0;
    callCounts.set(node, callIndex + 1);
    const task = {
      id: input.newId(),
      run_id: run.id,
      thread_id: run.thread_id,
      turn: state.turn,
      step: step + 1,
      seq,
      call_index: callIndex,
      node,
      version: state.version,
      attempt: 1,
      tenant_id: run.tenant_id,
      priority: run.priority,
    };
    if (reg.kind !== 'human') {
      const deadline = new Date(now.getTime() + taskTimeoutMs(run, node, reg, input.taskTimeoutMs));
      tasks.push({ ...task, subject: taskSubject(reg.service, node), deadline });
      continue;
    }
    const call = findToolCall(state, node, callIndex);
    if (node === CLIENT_TOOL.name) {
      const args = CLIENT_TOOL.argsSchema.safeParse(call?.args ?? {});
      if (!call || !args.success) {
        return fail({
          code: RunFailureCode.InvalidDelta,
          message: `${node} needs a function name and arguments${args.success ? '' : `: ${describeZodError(args.error)}`}`,
        });
      }
      clientCalls.push({ task_id: task.id, id: call.id, ...args.data });
    } else {
      const args = ASK_USER.argsSchema.safeParse(call?.args ?? {});
      if (!args.success) {
        return fail({
          code: RunFailureCode.InvalidDelta,
          message: `${node} needs a question: ${describeZodError(args.error)}`,
        });
      }
      waiting ??= {
        task_id: task.id,
        node,
        question: args.data.question,
        input_schema: args.data.input_schema ?? ASK_USER.defaultInputSchema,
        since: now.toISOString(),
        ...(args.data.resume_at ? { resume_at: args.data.resume_at } : {}),
      };
    }
    // A person answers when they answer: the reaper leaves human tasks alone.
    humanTasks.push({
      ...task,
      subject: `human.${node}`,
      deadline: new Date(now.getTime() + HUMAN_DEADLINE_MS),
    });
  }
  if (clientCalls.length) {
    // The client answers every call of the step in one request; ask_user (if any) keeps its question.
    waiting ??= {
      task_id: clientCalls[0].task_id,
      node: CLIENT_TOOL.name,
      question: `Run the client functions ${clientCalls.map((c) => c.name).join(', ')} and send their results.`,
      input_schema: CLIENT_TOOL_OUTPUTS_JSON_SCHEMA,
      since: now.toISOString(),
    };
    waiting.client_calls = clientCalls;
  }
  return waiting ? { kind: 'waiting', steps, tasks, humanTasks, waiting } : { kind: 'next', steps, tasks };
}

export { unionOfNext };

/**
 * A static breakpoint the step reaches: one of `after`'s nodes ran in it, or one of `before`'s
 * would run next. A step that goes on from a checkpoint (the `fork` action of a run with no
 * input) does not stop before what it continues with, or no run could get past a breakpoint.
 */
export function breakpointStop(
  breakpoints: RunRow['input']['breakpoints'],
  actions: readonly Pick<Action, 'node'>[],
  next: string[],
): BreakpointStop | null {
  if (!breakpoints) {
    return null;
  }
  const ran = [...new Set(actions.map((a) => a.node).filter((n) => breaksAt(breakpoints.after, n)))];
  if (ran.length) {
    return { when: 'after', nodes: ran, next };
  }
  if (actions.length === 1 && actions[0].node === FORK_NODE) {
    return null;
  }
  const ahead = [...new Set(next.filter((n) => breaksAt(breakpoints.before, n)))];
  return ahead.length ? { when: 'before', nodes: ahead, next } : null;
}

/** An action's result when it is an answer (`{answer, …}`), else undefined. */
function answerOf(action: Pick<Action, 'result'>): Record<string, unknown> | undefined {
  const result = action.result as { answer?: unknown } | null;
  return result && typeof result === 'object' && 'answer' in result
    ? (result as Record<string, unknown>)
    : undefined;
}

/**
 * The turn's latest answer: a run whose last action is not the answer (the `archive` step after
 * `output`) still ends with the answer as its output; null when the turn has none.
 */
function latestAnswer(actions: readonly Pick<Action, 'result'>[]): Record<string, unknown> | null {
  for (let i = actions.length - 1; i >= 0; i--) {
    const found = answerOf(actions[i]);
    if (found) {
      return found;
    }
  }
  return null;
}
