import {
  ASK_USER,
  CLIENT_TOOL,
  type Action,
  type JsonPatchOperation,
  type PlannerResult,
  PlannerResultSchema,
  type Todo,
  TodoSchema,
  type ToolCall,
} from '@switchyard/contracts';
import { allSettled, completeTodo } from '@switchyard/state';

// The planner's decisions that follow from the state alone: pure functions, no I/O, no LLM
// (planner.controller.ts orchestrates them with the calls; planner.prompts.ts words the calls).

export type Mode = NonNullable<PlannerResult['mode']>;

/** The output tools the output node itself writes with (the others are tools of the registry). */
export const BUILTIN_OUTPUT_TOOLS = ['output', 'output_structured'] as const;
export type BuiltinOutputTool = (typeof BUILTIN_OUTPUT_TOOLS)[number];

export const isBuiltinOutputTool = (name: string): name is BuiltinOutputTool =>
  (BUILTIN_OUTPUT_TOOLS as readonly string[]).includes(name);

// A small margin: timers may fire a millisecond before the clock reaches retry_after.
const RETRY_MARGIN_MS = 5;

/** The turn's mode, as its first planner step decided it (a turn without a recorded mode is ad hoc). */
export function turnMode(actions: readonly Action[]): Mode {
  const first = actions.find((a) => a.node === 'planner');
  const parsed = first ? PlannerResultSchema.safeParse(first.result) : undefined;
  return parsed?.success && parsed.data.mode === 'plan' ? 'plan' : 'adhoc';
}

/**
 * The registry output tool that presented this turn's answer: the latest planner step called it
 * as its output tool and its action came back (success or error: either way the turn closes).
 */
export function presentedWith(actions: readonly Action[]): string | undefined {
  const p = actions.map((a) => a.node).lastIndexOf('planner');
  if (p < 0) {
    return undefined;
  }
  const parsed = PlannerResultSchema.safeParse(actions[p].result);
  const tool = parsed.success
    ? parsed.data.output_tools?.find(
        (t) => !isBuiltinOutputTool(t) && parsed.data.tool_calls.some((c) => c.name === t),
      )
    : undefined;
  return tool && actions.slice(p + 1).some((a) => a.node === tool) ? tool : undefined;
}

/** The output tool that writes the closing answer once a registry tool presented it. */
export function closingOutputTool(agentOutputTools: readonly string[] | undefined): BuiltinOutputTool {
  return agentOutputTools?.find(isBuiltinOutputTool) ?? 'output';
}

/**
 * The output tools the last step may choose between: the agent's (built-in, or offered by the
 * registry), or `output` and every registry output tool when the agent names none.
 */
export function outputCandidates(
  agentOutputTools: readonly string[] | undefined,
  external: ReadonlySet<string>,
): string[] {
  return agentOutputTools?.length
    ? agentOutputTools.filter((t) => isBuiltinOutputTool(t) || external.has(t))
    : ['output', ...external];
}

/** Reflection's verdict on the latest tool round, when it came after the latest planner step. */
export function latestVerdict(
  actions: readonly Action[],
): { is_finished?: boolean; is_sufficient?: boolean } | undefined {
  for (let i = actions.length - 1; i >= 0; i--) {
    if (actions[i].node === 'reflection') {
      return actions[i].result as { is_finished?: boolean; is_sufficient?: boolean } | undefined;
    }
    if (actions[i].node === 'planner') {
      return undefined;
    }
  }
  return undefined;
}

const HUMAN_NODES = [ASK_USER.name, CLIENT_TOOL.name] as const;

/**
 * Answers of human nodes (`ask_user`, the client's functions) go straight back to the planner (no
 * reflection): the todo that asked is completed with the answer (the k-th answer of a node answers
 * its k-th call).
 */
export function settleHumanAnswers(todos: Todo[], actions: readonly Action[], now: Date): Todo[] {
  const p = actions.map((a) => a.node).lastIndexOf('planner');
  if (p < 0) {
    return todos;
  }
  const parsed = PlannerResultSchema.safeParse(actions[p].result);
  let result = todos;
  for (const node of HUMAN_NODES) {
    const asked = parsed.success ? parsed.data.tool_calls.filter((c) => c.name === node) : [];
    const answers = actions.slice(p + 1).filter((a) => a.node === node);
    answers.forEach((a, k) => {
      const call = asked[k];
      const idx = call
        ? result.findIndex((t) => t.call_ids.includes(call.id) && t.status === 'processing')
        : -1;
      if (idx >= 0) {
        result = result.slice();
        result[idx] = completeTodo(result[idx], {
          now,
          tool_used: node === CLIENT_TOOL.name ? clientFunctionOf(call) : node,
          execution_time: (Date.parse(a.finished_at) - Date.parse(a.started_at)) / 1000,
          output: a.result,
        });
      }
    });
  }
  return result;
}

/** The client function a `client_tool` call names. */
function clientFunctionOf(call: ToolCall): string {
  const args = CLIENT_TOOL.argsSchema.safeParse(call.args);
  return args.success ? args.data.name : CLIENT_TOOL.name;
}

/** How long to wait for the next retry: until it is due (plus a margin), at most `maxWaitMs`. */
export function retryWaitMs(retryAt: Date, now: Date, maxWaitMs: number): number {
  return Math.min(retryAt.getTime() - now.getTime() + RETRY_MARGIN_MS, maxWaitMs);
}

/**
 * A todo's calls with ids no earlier call of the step has: a clashing id gets the todo's id
 * appended. Adds the ids it returns to `seen`.
 */
export function uniqueCalls(calls: readonly ToolCall[], todoId: string, seen: Set<string>): ToolCall[] {
  const own = calls.map((c) => (seen.has(c.id) ? { ...c, id: `${c.id}_${todoId}` } : c));
  own.forEach((c) => seen.add(c.id));
  return own;
}

/** A todo whose calls were dispatched: processing, waiting for them. */
export function dispatchedTodo(todo: Todo, calls: readonly ToolCall[]): Todo {
  return {
    ...todo,
    status: 'processing',
    retry_after: null,
    call_ids: [...todo.call_ids, ...calls.map((c) => c.id)],
  };
}

/** Why a planned turn finishes when no todo is ready: everything settled, or nothing can progress. */
export function finishReason(todos: readonly Todo[]): string {
  const failed = todos.filter((t) => t.status === 'failed').length;
  const done = todos.filter((t) => t.status === 'completed').length;
  return allSettled(todos)
    ? `All todos are settled (${done} completed, ${failed} failed)`
    : `Nothing more can progress (${done} completed, ${failed} failed, ${todos.length - done - failed} open)`;
}

/**
 * The todos an unplanned step's tool calls become, numbered after the turn's todos (skipping ids
 * taken). The model decides on retries itself in this mode (it sees the error), so no automatic
 * retry.
 */
export function adhocTodos(todos: readonly Todo[], calls: readonly ToolCall[]): Todo[] {
  const taken = new Set(todos.map((t) => t.id));
  let n = todos.length;
  return calls.map((c) => {
    do {
      n += 1;
    } while (taken.has(String(n)));
    taken.add(String(n));
    return TodoSchema.parse({
      id: String(n),
      task: `${c.name} ${JSON.stringify(c.args)}`,
      status: 'processing',
      suggested_tools: [c.name],
      max_retry: 0,
      call_ids: [c.id],
    });
  });
}

/** The todo an external output tool's call is filed under: `present`, or `present_N` when taken. */
export function presentTodo(todos: readonly Todo[], call: ToolCall): Todo {
  const taken = new Set(todos.map((t) => t.id));
  let id = 'present';
  for (let n = 2; taken.has(id); n++) {
    id = `present_${n}`;
  }
  return TodoSchema.parse({
    id,
    task: `Present the answer with ${call.name}`,
    status: 'processing',
    suggested_tools: [call.name],
    max_retry: 0,
    call_ids: [call.id],
  });
}

/** The patch that writes the turn's todos, or none when the step left them as they were. */
export function todosPatch(
  turn: number,
  before: readonly Todo[],
  after: readonly Todo[],
): JsonPatchOperation[] {
  return JSON.stringify(after) === JSON.stringify(before)
    ? []
    : [{ op: 'replace', path: `/todos/${turn}`, value: after }];
}
