import type { Todo, TodoError } from '@switchyard/contracts';

// Pure upkeep of a turn's todo list (seed 003): the dependency graph, what may run next, and
// the bookkeeping of attempts. The planner and reflection both use it, so a rule lives in one place.

type GraphNode = Pick<Todo, 'id' | 'dependencies'>;

/**
 * What is wrong with a todo graph, one sentence per problem (empty = fine): duplicate ids,
 * dependencies on unknown or own ids, cycles. Planning replies are refused with these messages.
 */
export function todoGraphProblems(todos: readonly GraphNode[]): string[] {
  const problems: string[] = [];
  const ids = new Set<string>();
  for (const t of todos) {
    if (ids.has(t.id)) {
      problems.push(`todo id "${t.id}" is used twice`);
    }
    ids.add(t.id);
  }
  for (const t of todos) {
    for (const d of t.dependencies) {
      if (d === t.id) {
        problems.push(`todo "${t.id}" depends on itself`);
      } else if (!ids.has(d)) {
        problems.push(`todo "${t.id}" depends on unknown todo "${d}"`);
      }
    }
  }
  const cycle = findCycle(todos);
  if (cycle) {
    problems.push(`the dependencies form a cycle: ${cycle.join(' -> ')}`);
  }
  return problems;
}

/** One dependency cycle as a path of ids (first id repeated at the end), or undefined. Self-loops are not reported here. */
function findCycle(todos: readonly GraphNode[]): string[] | undefined {
  const deps = new Map(todos.map((t) => [t.id, t.dependencies.filter((d) => d !== t.id)]));
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (id: string): string[] | undefined => {
    const s = state.get(id);
    if (s === 'done' || !deps.has(id)) {
      return undefined;
    }
    if (s === 'open') {
      return [...path.slice(path.indexOf(id)), id];
    }
    state.set(id, 'open');
    path.push(id);
    for (const d of deps.get(id) ?? []) {
      const found = visit(d);
      if (found) {
        return found;
      }
    }
    path.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const t of todos) {
    const found = visit(t.id);
    if (found) {
      return found;
    }
  }
  return undefined;
}

/**
 * The critical path length of every todo: the length of the longest chain of todos that
 * (transitively) depend on it — 0 for a todo nothing waits for. A todo many others wait on
 * goes first among equals. The graph must be acyclic (see todoGraphProblems).
 */
export function criticalPathLengths(todos: readonly GraphNode[]): Map<string, number> {
  const dependents = new Map<string, string[]>(todos.map((t) => [t.id, []]));
  for (const t of todos) {
    for (const d of t.dependencies) {
      dependents.get(d)?.push(t.id);
    }
  }
  const memo = new Map<string, number>();
  const length = (id: string, guard: Set<string>): number => {
    const known = memo.get(id);
    if (known !== undefined) {
      return known;
    }
    if (guard.has(id)) {
      throw new Error(`todo graph has a cycle through "${id}"`);
    }
    guard.add(id);
    const below = dependents.get(id) ?? [];
    const value = below.length ? 1 + Math.max(...below.map((c) => length(c, guard))) : 0;
    guard.delete(id);
    memo.set(id, value);
    return value;
  };
  return new Map(todos.map((t) => [t.id, length(t.id, new Set())]));
}

/** The todos with `critical_path_length` computed from the graph. */
export function withCriticalPaths(todos: readonly Todo[]): Todo[] {
  const lengths = criticalPathLengths(todos);
  return todos.map((t) => ({ ...t, critical_path_length: lengths.get(t.id) ?? 0 }));
}

const isSettled = (t: Pick<Todo, 'status'>): boolean => t.status === 'completed' || t.status === 'failed';

/** Every todo completed or failed. */
export function allSettled(todos: readonly Todo[]): boolean {
  return todos.every(isSettled);
}

/**
 * Pending todos waiting on a dependency that failed (directly or through another blocked todo)
 * can never run: they fail too, with the reason in their error history.
 */
export function failBlockedTodos(todos: readonly Todo[], now: Date): Todo[] {
  const result = todos.slice();
  let changed = true;
  while (changed) {
    changed = false;
    const failed = new Set(result.filter((t) => t.status === 'failed').map((t) => t.id));
    result.forEach((t, i) => {
      const culprit = t.status === 'pending' ? t.dependencies.find((d) => failed.has(d)) : undefined;
      if (culprit !== undefined) {
        const entry: TodoError = {
          timestamp: now.toISOString(),
          attempt: 0,
          tool_used: '',
          error: `dependency_failed: dependency "${culprit}" failed, so this todo cannot run`,
          retry_count: t.retry,
          execution_time: 0,
        };
        result[i] = { ...t, status: 'failed', retry_after: null, error_history: [...t.error_history, entry] };
        changed = true;
      }
    });
  }
  return result;
}

const dependenciesCompleted = (t: Todo, byId: ReadonlyMap<string, Todo>): boolean =>
  t.dependencies.every((d) => byId.get(d)?.status === 'completed');

const waitsUntil = (t: Todo): number =>
  t.retry_after ? Date.parse(t.retry_after) : Number.NEGATIVE_INFINITY;

/**
 * The todos that may be dispatched now: pending, every dependency completed, past their
 * `retry_after`; highest priority first, then the longest critical path, then list order.
 */
export function readyTodos(todos: readonly Todo[], now: Date): Todo[] {
  const byId = new Map(todos.map((t) => [t.id, t]));
  return todos
    .map((t, index) => ({ t, index }))
    .filter(
      ({ t }) => t.status === 'pending' && dependenciesCompleted(t, byId) && waitsUntil(t) <= now.getTime(),
    )
    .sort(
      (a, b) =>
        b.t.priority - a.t.priority ||
        b.t.critical_path_length - a.t.critical_path_length ||
        a.index - b.index,
    )
    .map(({ t }) => t);
}

/** The earliest moment a pending todo with completed dependencies becomes ready after a back-off, if any waits. */
export function nextRetryAt(todos: readonly Todo[], now: Date): Date | undefined {
  const byId = new Map(todos.map((t) => [t.id, t]));
  const times = todos
    .filter((t) => t.status === 'pending' && dependenciesCompleted(t, byId) && waitsUntil(t) > now.getTime())
    .map(waitsUntil);
  return times.length ? new Date(Math.min(...times)) : undefined;
}

/** Back-off before retry number `retry` (1-based): base · 2^(retry−1), at most `maxMs`. */
export function retryBackoffMs(retry: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, retry - 1));
}

export interface AttemptFailure {
  now: Date;
  tool_used: string;
  /** "<code>: <message>" */
  error: string;
  execution_time: number;
  backoff: { baseMs: number; maxMs: number };
}

/**
 * Records a failed attempt: an error-history entry, then either a retry (`pending` again after a
 * back-off) while `retry < max_retry`, or `failed` — max_retry = 3 allows at most 4 attempts.
 */
export function recordFailedAttempt(todo: Todo, f: AttemptFailure): Todo {
  const canRetry = todo.retry < todo.max_retry;
  const retry = canRetry ? todo.retry + 1 : todo.retry;
  const entry: TodoError = {
    timestamp: f.now.toISOString(),
    attempt: todo.retry + 1,
    tool_used: f.tool_used,
    error: f.error,
    retry_count: retry,
    execution_time: f.execution_time,
  };
  const error_history = [...todo.error_history, entry];
  if (!canRetry) {
    return { ...todo, status: 'failed', retry_after: null, error_history };
  }
  const wait = retryBackoffMs(retry, f.backoff.baseMs, f.backoff.maxMs);
  return {
    ...todo,
    status: 'pending',
    retry,
    retry_after: new Date(f.now.getTime() + wait).toISOString(),
    error_history,
  };
}

/** Marks a todo completed with what produced its result. */
export function completeTodo(
  todo: Todo,
  d: { now: Date; tool_used: string; execution_time: number; output: unknown },
): Todo {
  return {
    ...todo,
    status: 'completed',
    retry_after: null,
    completion_details: {
      completed_at: d.now.toISOString(),
      tool_used: d.tool_used,
      execution_time: d.execution_time,
      output: d.output,
    },
  };
}
