import { z } from 'zod';
import { parseTemplate, stringsIn, TemplateError } from './template';

// The script that drives the scripted LLM: the first rule whose `when` holds answers the request.
// Objects are strict so a misspelt condition fails at load time instead of silently matching everything.

export const MessageRoleSchema = z.enum(['system', 'user', 'assistant', 'tool']);
export type MessageRole = z.infer<typeof MessageRoleSchema>;

const count = z.number().int().nonnegative();

export const WhenSchema = z.strictObject({
  /** Substring of the concatenated system messages. */
  system_includes: z.string().optional(),
  /** Substring of the last user message. */
  user_includes: z.string().optional(),
  /** Substring of any message content, tool messages included. */
  any_includes: z.string().optional(),
  /** Role of the last message. */
  last_role: MessageRoleSchema.optional(),
  /** Whether the request offered tools. */
  has_tools: z.boolean().optional(),
  /** Name of a tool the request offered. */
  tools_include: z.string().min(1).optional(),
  /** Number of messages with `role` lies within [min, max]. */
  count_role: z
    .strictObject({ role: MessageRoleSchema, min: count.optional(), max: count.optional() })
    .optional(),
  /** The request's API key (`Authorization: Bearer …` or `x-api-key`) equals this. */
  api_key: z.string().min(1).optional(),
});
export type When = z.infer<typeof WhenSchema>;

function checkTemplate(text: string, ctx: z.core.$RefinementCtx, path: (string | number)[] = []): void {
  try {
    parseTemplate(text);
  } catch (e) {
    if (!(e instanceof TemplateError)) {
      throw e;
    }
    ctx.addIssue({ code: 'custom', message: e.message, path });
  }
}

export const ScriptedToolCallSchema = z.strictObject({
  name: z.string().min(1),
  /** String values (at any depth) may use templates. */
  arguments: z.record(z.string(), z.unknown()),
});
export type ScriptedToolCall = z.infer<typeof ScriptedToolCallSchema>;

export const ReplySchema = z
  .strictObject({
    content: z.string().optional(),
    tool_calls: z.array(ScriptedToolCallSchema).optional(),
    usage: z.strictObject({ prompt_tokens: count, completion_tokens: count }).optional(),
    /** Wait before the first byte of the reply. */
    delay_ms: count.optional(),
    /** Wait between streamed chunks (default 5). */
    chunk_delay_ms: count.optional(),
    /** Reply with this HTTP error status and an OpenAI-shaped error body instead. */
    status: z.number().int().min(400).max(599).optional(),
    error_message: z.string().optional(),
    /** `retry-after` header (seconds) sent with `status`, e.g. on 429. */
    retry_after: count.optional(),
  })
  .superRefine((reply, ctx) => {
    if (reply.content === undefined && reply.tool_calls === undefined && reply.status === undefined) {
      ctx.addIssue({ code: 'custom', message: 'a reply needs content, tool_calls or status' });
    }
    if (reply.status === undefined) {
      for (const key of ['error_message', 'retry_after'] as const) {
        if (reply[key] !== undefined) {
          ctx.addIssue({ code: 'custom', message: 'needs status', path: [key] });
        }
      }
    }
    if (reply.content !== undefined) {
      checkTemplate(reply.content, ctx, ['content']);
    }
    reply.tool_calls?.forEach((call, i) => {
      for (const [text, path] of stringsIn(call.arguments, ['tool_calls', i, 'arguments'])) {
        checkTemplate(text, ctx, path);
      }
    });
  });
export type Reply = z.infer<typeof ReplySchema>;

export const RuleSchema = z.strictObject({
  name: z.string().min(1),
  when: WhenSchema.optional(),
  reply: ReplySchema,
  /** The rule answers at most this many requests, then is skipped. */
  times: count.optional(),
});
export type Rule = z.infer<typeof RuleSchema>;

export const ScriptSchema = z
  .strictObject({
    description: z.string().optional(),
    /**
     * Strict mode: a JSON reply goes only to a request that asked for JSON natively (response_format,
     * a forced tool, Ollama `format`); any other request gets it wrapped in prose. The request header
     * `x-scripted-strict: 1|0` overrides this per request.
     */
    strict: z.boolean().optional(),
    /** Ids listed by GET /v1/models (default ['scripted']). */
    models: z.array(z.string().min(1)).min(1).optional(),
    embeddings: z
      .strictObject({
        dimensions: z.number().int().min(1).max(8192).optional(),
        /**
         * Scripted vectors: an input equal to a key gets its vector (as a model would answer it);
         * other inputs get the hash embedding, of the scripted vectors' size when there are any.
         */
        vectors: z.record(z.string(), z.array(z.number()).min(1).max(8192)).optional(),
      })
      .superRefine((e, ctx) => {
        const sizes = new Set(Object.values(e.vectors ?? {}).map((v) => v.length));
        if (sizes.size > 1 || (e.dimensions !== undefined && sizes.size === 1 && !sizes.has(e.dimensions))) {
          ctx.addIssue({
            code: 'custom',
            path: ['vectors'],
            message: 'scripted vectors must all have the same size (dimensions)',
          });
        }
      })
      .optional(),
    rules: z.array(RuleSchema),
  })
  .superRefine((script, ctx) => {
    // Rule names are what /_requests reports, so they must tell rules apart.
    const seen = new Set<string>();
    script.rules.forEach((rule, i) => {
      if (seen.has(rule.name)) {
        ctx.addIssue({
          code: 'custom',
          message: `duplicate rule name "${rule.name}"`,
          path: ['rules', i, 'name'],
        });
      }
      seen.add(rule.name);
    });
  });
export type Script = z.infer<typeof ScriptSchema>;

export const DEFAULT_MODELS = ['scripted'];
export const DEFAULT_EMBEDDING_DIMENSIONS = 64;

/** `rules.2.reply.content: unknown template …; rules.3.name: …` */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((i) => `${i.path.length ? i.path.map(String).join('.') : '(root)'}: ${i.message}`)
    .join('; ');
}

export class ScriptValidationError extends Error {
  constructor(readonly issues: z.core.$ZodIssue[]) {
    super(`invalid script: ${formatIssues(issues)}`);
    this.name = 'ScriptValidationError';
  }
}

/** Validates a script (e.g. parsed JSON); throws ScriptValidationError listing every zod issue. */
export function parseScript(raw: unknown): Script {
  const parsed = ScriptSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ScriptValidationError(parsed.error.issues);
  }
  return parsed.data;
}
