import { type Todo, TodoSchema } from '@switchyard/contracts';
import {
  allSettled,
  completeTodo,
  criticalPathLengths,
  failBlockedTodos,
  nextRetryAt,
  readyTodos,
  recordFailedAttempt,
  retryBackoffMs,
  todoGraphProblems,
  withCriticalPaths,
} from './todo-graph';

const NOW = new Date('2026-01-01T12:00:00.000Z');
const todo = (id: string, extra: Partial<Todo> = {}): Todo =>
  TodoSchema.parse({ id, task: `task ${id}`, status: 'pending', ...extra });
const ids = (list: readonly Todo[]) => list.map((t) => t.id);
const BACKOFF = { baseMs: 1000, maxMs: 5000 };

describe('todoGraphProblems', () => {
  it('accepts an acyclic graph with known ids', () => {
    expect(todoGraphProblems([todo('a'), todo('b', { dependencies: ['a'] })])).toEqual([]);
  });

  it.each<[string, Todo[], string]>([
    ['an unknown dependency', [todo('a', { dependencies: ['zz'] })], 'todo "a" depends on unknown todo "zz"'],
    ['a self dependency', [todo('a', { dependencies: ['a'] })], 'todo "a" depends on itself'],
    ['a duplicate id', [todo('a'), todo('a')], 'todo id "a" is used twice'],
    [
      'a cycle',
      [
        todo('a', { dependencies: ['c'] }),
        todo('b', { dependencies: ['a'] }),
        todo('c', { dependencies: ['b'] }),
      ],
      'the dependencies form a cycle: a -> c -> b -> a',
    ],
  ])('names %s', (_name, todos, problem) => {
    expect(todoGraphProblems(todos)).toContain(problem);
  });
});

describe('criticalPathLengths', () => {
  it('is the longest chain of dependents: 0 for a todo nothing waits for', () => {
    // a <- b <- d, a <- c, e alone
    const lengths = criticalPathLengths([
      todo('a'),
      todo('b', { dependencies: ['a'] }),
      todo('c', { dependencies: ['a'] }),
      todo('d', { dependencies: ['b'] }),
      todo('e'),
    ]);
    expect(Object.fromEntries(lengths)).toEqual({ a: 2, b: 1, c: 0, d: 0, e: 0 });
  });

  it('counts a diamond once per level', () => {
    const lengths = criticalPathLengths([
      todo('a'),
      todo('b', { dependencies: ['a'] }),
      todo('c', { dependencies: ['a'] }),
      todo('d', { dependencies: ['b', 'c'] }),
    ]);
    expect(lengths.get('a')).toBe(2);
  });

  it('refuses a cycle instead of looping', () => {
    expect(() =>
      criticalPathLengths([todo('a', { dependencies: ['b'] }), todo('b', { dependencies: ['a'] })]),
    ).toThrow(/cycle/);
  });

  it('withCriticalPaths writes them into the todos', () => {
    const list = withCriticalPaths([todo('a'), todo('b', { dependencies: ['a'] })]);
    expect(list.map((t) => t.critical_path_length)).toEqual([1, 0]);
  });
});

describe('readyTodos', () => {
  it('orders by priority, then critical path length, then list order', () => {
    const list = withCriticalPaths([
      todo('low', { priority: 1 }),
      todo('tie-short', { priority: 5 }),
      todo('tie-long', { priority: 5 }),
      todo('after-long', { priority: 9, dependencies: ['tie-long'] }),
      todo('top', { priority: 8 }),
      todo('tie-short-2', { priority: 5 }),
    ]);
    expect(ids(readyTodos(list, NOW))).toEqual(['top', 'tie-long', 'tie-short', 'tie-short-2', 'low']);
  });

  it('never offers a todo whose dependencies are not all completed', () => {
    const list = [
      todo('a', { status: 'completed' }),
      todo('b', { status: 'processing' }),
      todo('c', { dependencies: ['a'] }),
      todo('d', { dependencies: ['a', 'b'] }),
      todo('e', { dependencies: ['missing'] }),
    ];
    expect(ids(readyTodos(list, NOW))).toEqual(['c']);
  });

  it('respects retry_after and reports when the next retry is due', () => {
    const soon = new Date(NOW.getTime() + 1500).toISOString();
    const later = new Date(NOW.getTime() + 4000).toISOString();
    const list = [
      todo('waits', { retry_after: later }),
      todo('waits-less', { retry_after: soon }),
      todo('due', { retry_after: new Date(NOW.getTime() - 1).toISOString() }),
    ];
    expect(ids(readyTodos(list, NOW))).toEqual(['due']);
    expect(nextRetryAt(list, NOW)?.toISOString()).toBe(soon);
    expect(ids(readyTodos(list, new Date(NOW.getTime() + 2000)))).toEqual(['waits-less', 'due']);
    expect(nextRetryAt([todo('x')], NOW)).toBeUndefined();
  });
});

describe('failBlockedTodos', () => {
  it('fails pending todos behind a failed dependency, transitively, with the reason', () => {
    const list = failBlockedTodos(
      [
        todo('bad', { status: 'failed' }),
        todo('b', { dependencies: ['bad'] }),
        todo('c', { dependencies: ['b'] }),
        todo('free'),
      ],
      NOW,
    );
    expect(list.map((t) => t.status)).toEqual(['failed', 'failed', 'failed', 'pending']);
    expect(list[1].error_history).toEqual([
      expect.objectContaining({ attempt: 0, error: expect.stringContaining('dependency "bad" failed') }),
    ]);
    expect(list[2].error_history[0].error).toContain('dependency "b" failed');
    expect(allSettled(list)).toBe(false);
    expect(allSettled(list.slice(0, 3))).toBe(true);
  });
});

describe('attempts', () => {
  it('backs off exponentially, capped', () => {
    expect([1, 2, 3, 4, 5].map((r) => retryBackoffMs(r, 1000, 5000))).toEqual([1000, 2000, 4000, 5000, 5000]);
  });

  it('max_retry = 3 allows four attempts, each failure in error_history, then failed', () => {
    let t = todo('x', { status: 'processing' });
    const statuses: string[] = [];
    for (let i = 0; i < 4; i++) {
      t = recordFailedAttempt(t, {
        now: NOW,
        tool_used: 'calculator',
        error: 'math_error: division by zero',
        execution_time: 0.5,
        backoff: BACKOFF,
      });
      statuses.push(t.status);
      if (t.status === 'pending') {
        t = { ...t, status: 'processing' };
      }
    }
    expect(statuses).toEqual(['pending', 'pending', 'pending', 'failed']);
    expect(t.retry).toBe(3);
    expect(t.retry_after).toBeNull();
    expect(t.error_history.map((e) => [e.attempt, e.retry_count])).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
      [4, 3],
    ]);
    expect(t.error_history[0]).toMatchObject({
      tool_used: 'calculator',
      error: 'math_error: division by zero',
    });
  });

  it('schedules the retry after the back-off', () => {
    const t = recordFailedAttempt(todo('x', { retry: 1 }), {
      now: NOW,
      tool_used: 'http_get',
      error: 'e: x',
      execution_time: 0,
      backoff: BACKOFF,
    });
    expect(t.retry_after).toBe(new Date(NOW.getTime() + 2000).toISOString());
  });

  it('max_retry = 0 fails on the first failure', () => {
    const t = recordFailedAttempt(todo('x', { max_retry: 0 }), {
      now: NOW,
      tool_used: 't',
      error: 'e: x',
      execution_time: 0,
      backoff: BACKOFF,
    });
    expect(t.status).toBe('failed');
  });

  it('completeTodo records the completion details', () => {
    const t = completeTodo(todo('x', { retry_after: NOW.toISOString() }), {
      now: NOW,
      tool_used: 'calculator',
      execution_time: 1.5,
      output: { value: 4 },
    });
    expect(t).toMatchObject({
      status: 'completed',
      retry_after: null,
      completion_details: {
        completed_at: NOW.toISOString(),
        tool_used: 'calculator',
        execution_time: 1.5,
        output: { value: 4 },
      },
    });
  });
});
