import { z } from 'zod';
import { type Todo, TodoSchema } from '@switchyard/contracts';
import { todoGraphProblems, withCriticalPaths } from '@switchyard/state';

// Models write ids as numbers as often as strings; both mean the same todo.
const Id = z.union([z.string().min(1), z.number().int()]).transform(String);

/** One todo as the planning call writes it (the bookkeeping fields are the planner's). */
export const PlannedTodoSchema = z.object({
  id: Id,
  task: z.string().min(1),
  dependencies: z.array(Id).default([]),
  suggested_tools: z.array(z.string()).default([]),
  priority: z.number().int().min(0).max(100).default(5),
  execution_tips: z.string().optional(),
  success_criteria: z.string().optional(),
  max_retry: z.number().int().min(0).max(10).default(3),
});

/**
 * The planning call's reply: `{"todos": [...]}`. A graph with unknown or own dependencies,
 * duplicate ids or a cycle is refused with the reason, which the structured call feeds back.
 */
export const PlanReplySchema = z
  .object({ todos: z.array(PlannedTodoSchema).max(50) })
  .superRefine((plan, ctx) => {
    for (const problem of todoGraphProblems(plan.todos)) {
      ctx.addIssue({ code: 'custom', message: problem, path: ['todos'] });
    }
  });
export type PlanReply = z.infer<typeof PlanReplySchema>;

/** The plan as the turn's todo list: all pending, with critical path lengths computed. */
export function todosOfPlan(plan: PlanReply): Todo[] {
  return withCriticalPaths(plan.todos.map((t) => TodoSchema.parse({ ...t, status: 'pending' })));
}
