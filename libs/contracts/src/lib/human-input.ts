import { z } from 'zod';

/**
 * `ask_user`: the planner-callable human node. Its task is not consumed by a worker: the run
 * waits until `POST /v1/runs/:id/resume` brings an answer valid against `input_schema`, which
 * becomes the action's result; routing then goes on at `next`.
 */
export const ASK_USER = {
  name: 'ask_user',
  description:
    'Ask the user a question and wait for the answer (use when the request is ambiguous or needs information only the user has).',
  next: ['planner'],
  defaultInputSchema: {
    type: 'object',
    properties: { answer: { type: 'string' } },
    required: ['answer'],
  } as Record<string, unknown>,
  argsSchema: z.object({
    question: z.string().min(1).max(10_000),
    input_schema: z.record(z.string(), z.unknown()).optional(),
    // A graph agent's UserFillUp asks for itself: the answer goes back to that node, not the planner.
    resume_at: z
      .string()
      .regex(/^graph\.[a-z0-9_-]+$/)
      .optional(),
  }),
} as const;

export const AskUserInputJsonSchema: Record<string, unknown> = {
  type: 'object',
  properties: {
    question: { type: 'string', description: 'The question for the user' },
    input_schema: {
      type: 'object',
      description: 'JSON Schema of the expected answer (default: {answer: string})',
    },
  },
  required: ['question'],
};
