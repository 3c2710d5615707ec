import { PlanReplySchema, todosOfPlan } from './plan.schema';

describe('PlanReplySchema', () => {
  it('turns the reply into pending todos with defaults and critical path lengths', () => {
    const plan = PlanReplySchema.parse({
      todos: [
        { id: 1, task: 'fetch' },
        { id: '2', task: 'sum', dependencies: [1], priority: 9 },
      ],
    });
    const todos = todosOfPlan(plan);
    expect(todos).toEqual([
      expect.objectContaining({
        id: '1',
        status: 'pending',
        priority: 5,
        max_retry: 3,
        critical_path_length: 1,
        retry: 0,
      }),
      expect.objectContaining({
        id: '2',
        dependencies: ['1'],
        priority: 9,
        critical_path_length: 0,
        error_history: [],
      }),
    ]);
  });

  it('accepts an empty plan (no upfront plan)', () => {
    expect(todosOfPlan(PlanReplySchema.parse({ todos: [] }))).toEqual([]);
  });

  it.each([
    ['an unknown dependency', [{ id: 'a', task: 'a', dependencies: ['b'] }], 'depends on unknown todo "b"'],
    [
      'a cycle',
      [
        { id: 'a', task: 'a', dependencies: ['b'] },
        { id: 'b', task: 'b', dependencies: ['a'] },
      ],
      'the dependencies form a cycle',
    ],
    ['a task without text', [{ id: 'a', task: '' }], 'todos.0.task'],
  ])('refuses %s, naming it', (_name, todos, message) => {
    const parsed = PlanReplySchema.safeParse({ todos });
    expect(parsed.success).toBe(false);
    const text = parsed.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    expect(text).toContain(message);
  });
});
