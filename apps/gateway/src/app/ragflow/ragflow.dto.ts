import { z } from 'zod';

/** RAGFlow's return codes (common/constants.py `RetCode`): the `code` of every answer. */
export enum RagflowCode {
  Success = 0,
  ExceptionError = 100,
  ArgumentError = 101,
  DataError = 102,
  OperatingError = 103,
  AuthenticationError = 109,
  ServerError = 500,
}

/** An error answered in RAGFlow's envelope `{code, message, data: false}` (HTTP 200, as RAGFlow does). */
export class RagflowException extends Error {
  constructor(
    readonly code: RagflowCode,
    message: string,
  ) {
    super(message);
    this.name = 'RagflowException';
  }
}

/**
 * `POST /api/v1/agents/chat/completions` (and the older `/api/v1/agents/{agent_id}/completions`):
 * standard mode (`query`/`question`, RAGFlow's events) or `openai-compatible` (`messages`, chat
 * completion chunks). Other top-level keys are the Begin component's inputs, as RAGFlow takes them.
 */
export const CompletionSchema = z
  .object({
    agent_id: z.string().min(1).max(128).optional(),
    query: z.string().max(100_000).optional(),
    question: z.string().max(100_000).optional(),
    stream: z.boolean().optional(),
    session_id: z.string().min(1).max(64).optional(),
    inputs: z.record(z.string(), z.unknown()).optional(),
    user_id: z.string().min(1).max(200).optional(),
    return_trace: z.boolean().optional(),
    files: z
      .array(z.unknown())
      .max(0, 'files are not read by this API: upload them with the run (/v1/files)')
      .optional(),
    'openai-compatible': z.boolean().optional(),
    messages: z
      .array(z.object({ role: z.string(), content: z.string() }).passthrough())
      .max(1000)
      .optional(),
    model: z.string().optional(),
  })
  .catchall(z.unknown());
export type CompletionBody = z.infer<typeof CompletionSchema>;

/** Keys RAGFlow defines that this API cannot honour: refused (101) rather than ignored. */
export const REFUSED_COMPLETION_KEYS: Record<string, string> = {
  chat_template_kwargs: "the agent's models decide their chat template",
  custom_header: 'custom headers are not sent to tools',
  sync_dsl: "a session runs the agent's published version",
};

export const SessionListSchema = z
  .object({
    page: z.coerce.number().int().min(1).default(1),
    page_size: z.coerce.number().int().min(1).max(1000).default(30),
    orderby: z.enum(['create_time', 'update_time']).default('update_time'),
    desc: z
      .enum(['true', 'false', 'True', 'False'])
      .transform((v) => v.toLowerCase() === 'true')
      .default(true),
    id: z.string().optional(),
    user_id: z.string().optional(),
    dsl: z
      .enum(['true', 'false', 'True', 'False'])
      .transform((v) => v.toLowerCase() === 'true')
      .default(true),
  })
  .strict();

export const AgentListSchema = z
  .object({
    page: z.coerce.number().int().min(1).default(1),
    page_size: z.coerce.number().int().min(1).max(1000).default(30),
    orderby: z.enum(['create_time', 'update_time']).default('create_time'),
    desc: z
      .enum(['true', 'false', 'True', 'False'])
      .transform((v) => v.toLowerCase() === 'true')
      .default(true),
    id: z.string().optional(),
    title: z.string().optional(),
    name: z.string().optional(),
  })
  .strict();

export const DeleteSessionsSchema = z
  .object({ ids: z.array(z.string()).nullish(), delete_all: z.boolean().optional() })
  .strict()
  .nullish();

/** Parses with `schema`, the first problem as RAGFlow's argument error. */
export function parsed<S extends z.ZodType>(schema: S, raw: unknown): z.infer<S> {
  const r = schema.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0];
    const where = issue.code === 'unrecognized_keys' ? issue.keys.join(', ') : issue.path.join('.');
    throw new RagflowException(
      RagflowCode.ArgumentError,
      issue.code === 'unrecognized_keys'
        ? `unknown parameter ${where}`
        : `${where || 'body'}: ${issue.message}`,
    );
  }
  return r.data;
}
