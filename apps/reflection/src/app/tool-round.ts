import {
  type Action,
  ORCHESTRATOR_NODES,
  PlannerResultSchema,
  type Todo,
  type ToolCall,
} from '@switchyard/contracts';

/** One tool result of the round with the call it answered (when it can be told). */
export interface RoundResult {
  action: Action;
  call?: ToolCall;
}

/** The results of a round filed under one todo (`todo` absent: calls no todo claims). */
export interface TodoGroup {
  todoIndex: number;
  todo?: Todo;
  results: RoundResult[];
}

/**
 * The latest planner step's tool results, each paired with its call: the k-th action of node N
 * after the planner action answers the k-th call of N (the orchestrator dispatches a node's
 * calls with increasing call_index and applies deltas in dispatch order).
 */
export function latestToolRound(actions: readonly Action[]): RoundResult[] {
  const p = actions.map((a) => a.node).lastIndexOf('planner');
  if (p < 0) {
    return [];
  }
  const parsed = PlannerResultSchema.safeParse(actions[p].result);
  const calls = parsed.success ? parsed.data.tool_calls : [];
  const seen = new Map<string, number>();
  return (
    actions
      .slice(p + 1)
      // Not a tool's result: reflection's own actions, and a `fork` that branched the thread here.
      .filter((a) => a.node !== 'reflection' && !ORCHESTRATOR_NODES.includes(a.node))
      .map((action) => {
        const k = seen.get(action.node) ?? 0;
        seen.set(action.node, k + 1);
        return { action, call: calls.filter((c) => c.name === action.node)[k] };
      })
  );
}

/** Groups a round's results by the todo each call is filed under (in todo order, then the unfiled ones). */
export function groupByTodo(todos: readonly Todo[], round: readonly RoundResult[]): TodoGroup[] {
  const groups = new Map<number, TodoGroup>();
  for (const r of round) {
    const todoIndex = r.call ? todos.findIndex((t) => t.call_ids.includes(r.call!.id)) : -1;
    const group = groups.get(todoIndex) ?? {
      todoIndex,
      ...(todoIndex >= 0 ? { todo: todos[todoIndex] } : {}),
      results: [],
    };
    group.results.push(r);
    groups.set(todoIndex, group);
  }
  return [...groups.values()].sort((a, b) =>
    a.todoIndex < 0 ? 1 : b.todoIndex < 0 ? -1 : a.todoIndex - b.todoIndex,
  );
}

/** Seconds an action took. */
export const secondsOf = (a: Action): number =>
  Math.max(0, (Date.parse(a.finished_at) - Date.parse(a.started_at)) / 1000);

/** The nodes of some results, once each, in order. */
export const toolsOf = (results: readonly RoundResult[]): string =>
  [...new Set(results.map((r) => r.action.node))].join(', ');

/** "<code>: <message>" of every failed result. */
export const errorsOf = (results: readonly RoundResult[]): string =>
  results
    .filter((r) => r.action.error)
    .map((r) => `${r.action.error!.code}: ${r.action.error!.message}`)
    .join('; ');
