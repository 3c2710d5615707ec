import type { PipeTransform } from '@nestjs/common';
import { Ajv } from 'ajv';
import { z } from 'zod';
import { ClientToolSchema, ResponseFormatSchema } from '@switchyard/contracts';
import { OpenAiErrorCode, OpenAiException } from './openai.exception';

const ContentPart = z.object({ type: z.string(), text: z.string().optional() }).passthrough();

const AssistantToolCall = z
  .object({
    id: z.string().min(1).max(256),
    type: z.literal('function'),
    function: z.object({ name: z.string().min(1), arguments: z.string() }).strict(),
  })
  .strict();

/**
 * The OpenAI chat completion request as Switchyard serves it. Every field OpenAI defines that
 * cannot be honoured is refused (`unsupportedFields`): nothing is silently ignored.
 */
export const ChatCompletionRequestSchema = z
  .object({
    model: z.string().min(1).max(300),
    messages: z
      .array(
        z
          .object({
            role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
            content: z.union([z.string(), z.array(ContentPart), z.null()]).optional(),
            // A participant's name: kept with nothing else (it changes no answer).
            name: z.string().max(256).optional(),
            tool_calls: z.array(AssistantToolCall).max(128).optional(),
            tool_call_id: z.string().min(1).max(256).optional(),
            refusal: z.string().nullish(),
          })
          .strict(),
      )
      .min(1)
      .max(1000),
    stream: z.boolean().optional(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).strict().optional(),
    user: z.string().max(256).optional(),
    tools: z.array(ClientToolSchema).max(128).optional(),
    tool_choice: z.unknown().optional(),
    parallel_tool_calls: z.boolean().optional(),
    response_format: z
      .union([z.object({ type: z.literal('text') }).strict(), ResponseFormatSchema])
      .optional(),
    n: z.number().int().optional(),
    logprobs: z.boolean().optional(),
    modalities: z.array(z.string()).optional(),
  })
  .strict();
export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequestSchema>;
export type ChatMessage = ChatCompletionRequest['messages'][number];

// Fields OpenAI defines that the agent's own models and settings decide (400 naming them).
const REFUSED_FIELDS: Record<string, string> = {
  temperature: "sampling is set by the agent's models",
  top_p: "sampling is set by the agent's models",
  max_tokens: "the agent's steps decide the answer's length",
  max_completion_tokens: "the agent's steps decide the answer's length",
  stop: 'stop sequences are not supported',
  seed: 'seeded sampling is not supported',
  presence_penalty: "sampling is set by the agent's models",
  frequency_penalty: "sampling is set by the agent's models",
  logit_bias: "sampling is set by the agent's models",
  top_logprobs: 'log probabilities are not available',
  audio: 'audio output is not supported',
  functions: 'use tools',
  function_call: 'use tool_choice',
  metadata: 'stored completions are not supported; runs keep their own metadata (POST /v1/runs)',
  store: 'stored completions are not supported',
  prediction: 'predicted outputs are not supported',
  reasoning_effort: "reasoning is set by the agent's models",
  service_tier: 'service tiers are not supported',
  web_search_options: 'web search is not supported',
  verbosity: 'verbosity is set by the agent',
  prompt_cache_key: 'prompt caching is not supported',
  safety_identifier: 'safety identifiers are not supported; use user',
};

/** OpenAI's `messages[0].content[1].type` from a zod path. */
export function paramOf(path: readonly PropertyKey[]): string | null {
  let out = '';
  for (const p of path) {
    out += typeof p === 'number' ? `[${p}]` : out ? `.${String(p)}` : String(p);
  }
  return out || null;
}

/**
 * Parses an OpenAI request body with `schema`: a field in `refused` is a 400 naming it and why,
 * an unknown field is `unsupported_parameter`, an invalid one `invalid_value` with its `param`.
 * Fields sent as `null` count as absent.
 */
export function parseOpenAiBody<S extends z.ZodType>(
  raw: unknown,
  schema: S,
  refused: Readonly<Record<string, string>>,
): z.infer<S> {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    throw OpenAiException.invalid(null, 'the body must be a JSON object');
  }
  const body = Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== null));
  for (const key of Object.keys(body)) {
    if (Object.hasOwn(refused, key)) {
      throw OpenAiException.unsupported(key, `${key} is not supported: ${refused[key]}`);
    }
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    if (issue.code === 'unrecognized_keys') {
      const key = paramOf([...issue.path, issue.keys[0]]) ?? issue.keys[0];
      throw OpenAiException.unsupported(key, `${key} is not supported`);
    }
    const param = paramOf(issue.path);
    throw OpenAiException.invalid(param, `${param ?? 'the body'}: ${issue.message}`);
  }
  return parsed.data;
}

/**
 * Parses the body, refusing what Switchyard cannot honour with a 400 in OpenAI's shape whose
 * `param` names the field. Fields sent as `null` count as absent.
 */
export function parseChatCompletionRequest(raw: unknown): ChatCompletionRequest {
  const req = parseOpenAiBody(raw, ChatCompletionRequestSchema, REFUSED_FIELDS);
  if (req.n !== undefined && req.n !== 1) {
    throw OpenAiException.unsupported(
      'n',
      'n must be 1: one run answers a request',
      OpenAiErrorCode.UnsupportedValue,
    );
  }
  if (req.logprobs) {
    throw OpenAiException.unsupported(
      'logprobs',
      'log probabilities are not available',
      OpenAiErrorCode.UnsupportedValue,
    );
  }
  if (req.modalities && req.modalities.some((m) => m !== 'text')) {
    throw OpenAiException.unsupported(
      'modalities',
      'only the text modality is supported',
      OpenAiErrorCode.UnsupportedValue,
    );
  }
  if (req.stream_options && !req.stream) {
    throw OpenAiException.invalid('stream_options', 'stream_options is only allowed with stream: true');
  }
  if (req.parallel_tool_calls === false) {
    throw OpenAiException.unsupported(
      'parallel_tool_calls',
      'parallel_tool_calls: false is not supported: the planner may call several tools in one step',
      OpenAiErrorCode.UnsupportedValue,
    );
  }
  if (req.tool_choice !== undefined && req.tool_choice !== 'auto' && req.tool_choice !== 'none') {
    throw OpenAiException.unsupported(
      'tool_choice',
      'tool_choice must be "auto" or "none": the agent\'s planner decides which tool to call',
      OpenAiErrorCode.UnsupportedValue,
    );
  }
  const names = new Set<string>();
  (req.tools ?? []).forEach((t, i) => {
    if (names.has(t.function.name)) {
      throw OpenAiException.invalid(`tools[${i}].function.name`, `two tools are named "${t.function.name}"`);
    }
    names.add(t.function.name);
    if (t.function.parameters && !compiles(t.function.parameters)) {
      throw OpenAiException.invalid(
        `tools[${i}].function.parameters`,
        'the parameters are not a valid JSON Schema',
      );
    }
  });
  if (req.response_format?.type === 'json_schema' && !compiles(req.response_format.json_schema.schema)) {
    throw OpenAiException.invalid(
      'response_format.json_schema.schema',
      'the schema is not a valid JSON Schema',
    );
  }
  req.messages.forEach((m, i) => {
    if (Array.isArray(m.content)) {
      m.content.forEach((part, j) => {
        if (part.type !== 'text' || typeof part.text !== 'string') {
          throw OpenAiException.unsupported(
            `messages[${i}].content[${j}].type`,
            `content parts of type "${part.type}" are not supported: send text`,
            OpenAiErrorCode.UnsupportedValue,
          );
        }
      });
    }
    if (m.role === 'tool' && !m.tool_call_id) {
      throw OpenAiException.invalid(
        `messages[${i}].tool_call_id`,
        'a tool message needs the tool_call_id it answers',
      );
    }
    if (m.role !== 'tool' && m.tool_call_id !== undefined) {
      throw OpenAiException.invalid(`messages[${i}].tool_call_id`, 'only tool messages carry a tool_call_id');
    }
    if (m.role !== 'assistant' && m.tool_calls !== undefined) {
      throw OpenAiException.invalid(`messages[${i}].tool_calls`, 'only assistant messages carry tool_calls');
    }
  });
  const last = req.messages[req.messages.length - 1];
  if (last.role !== 'user' && last.role !== 'tool') {
    throw OpenAiException.invalid(
      `messages[${req.messages.length - 1}].role`,
      'the last message must be a user message (a new turn) or a tool message (results of the tool calls the run waits for)',
    );
  }
  if (last.role === 'user' && !textOf(last.content).trim()) {
    throw OpenAiException.invalid(
      `messages[${req.messages.length - 1}].content`,
      'the last user message has no text',
    );
  }
  return req;
}

/** Nest pipe: `parseChatCompletionRequest`. */
export class ChatCompletionRequestPipe implements PipeTransform<unknown, ChatCompletionRequest> {
  transform(value: unknown): ChatCompletionRequest {
    return parseChatCompletionRequest(value);
  }
}

/** Whether a client's JSON Schema compiles (a function's parameters, a response format). */
export function compiles(schema: Record<string, unknown>): boolean {
  try {
    // A fresh instance: Ajv keeps every schema it compiled, and these come from clients.
    new Ajv({ strict: false }).compile(schema);
    return true;
  } catch {
    return false;
  }
}

/** Text of a message whether it came as a string or as content parts. */
export function textOf(content: ChatMessage['content']): string {
  if (typeof content === 'string') {
    return content;
  }
  return (content ?? []).map((p) => p.text ?? '').join('');
}
