import type { PipeTransform } from '@nestjs/common';
import { z } from 'zod';
import {
  type ChatMessage as HistoryMessage,
  ClientFunctionNameSchema,
  type ClientRequestOptions,
  UserIdSchema,
} from '@switchyard/contracts';
import { compiles, parseOpenAiBody } from './chat-completions.dto';
import { OpenAiErrorCode, OpenAiException } from './openai.exception';

const TextPart = z
  .object({
    type: z.enum(['input_text', 'output_text']),
    text: z.string(),
    annotations: z.array(z.unknown()).optional(),
    logprobs: z.array(z.unknown()).optional(),
  })
  .strict();

const MessageItem = z
  .object({
    type: z.literal('message').optional(),
    id: z.string().max(256).optional(),
    status: z.string().optional(),
    role: z.enum(['user', 'assistant', 'system', 'developer']),
    content: z.union([z.string(), z.array(TextPart)]),
  })
  .strict();

const FunctionCallItem = z
  .object({
    type: z.literal('function_call'),
    id: z.string().max(256).optional(),
    status: z.string().optional(),
    call_id: z.string().min(1).max(256),
    name: z.string().min(1).max(64),
    arguments: z.string(),
  })
  .strict();

const FunctionCallOutputItem = z
  .object({
    type: z.literal('function_call_output'),
    id: z.string().max(256).optional(),
    status: z.string().optional(),
    call_id: z.string().min(1).max(256),
    output: z.union([
      z.string().max(1_000_000),
      z.array(z.object({ type: z.literal('input_text'), text: z.string() }).strict()),
    ]),
  })
  .strict();

const InputItem = z.union([MessageItem, FunctionCallItem, FunctionCallOutputItem]);
export type ResponseInputItem = z.infer<typeof InputItem>;

export const ResponseToolSchema = z
  .object({
    type: z.literal('function'),
    name: ClientFunctionNameSchema,
    description: z.string().max(10_000).nullish(),
    parameters: z.record(z.string(), z.unknown()).nullish(),
    strict: z.boolean().nullish(),
  })
  .strict();
export type ResponseTool = z.infer<typeof ResponseToolSchema>;

export const TextFormatSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }).strict(),
  z.object({ type: z.literal('json_object') }).strict(),
  z
    .object({
      type: z.literal('json_schema'),
      name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'a format name is 1 to 64 letters, digits, _ or -'),
      description: z.string().max(10_000).optional(),
      schema: z.record(z.string(), z.unknown()),
      strict: z.boolean().nullish(),
    })
    .strict(),
]);
export type TextFormat = z.infer<typeof TextFormatSchema>;

/**
 * OpenAI's Responses API request (`POST /v1/responses`) as Switchyard serves it. A field OpenAI
 * defines that cannot be honoured is refused with a 400 naming it — nothing is silently ignored.
 */
export const ResponseRequestSchema = z
  .object({
    model: z.string().min(1).max(300),
    input: z.union([z.string().min(1).max(100_000), z.array(InputItem).min(1).max(1000)]),
    instructions: z.string().max(100_000).optional(),
    previous_response_id: z.string().optional(),
    tools: z.array(ResponseToolSchema).max(128).optional(),
    tool_choice: z.enum(['auto', 'none']).optional(),
    parallel_tool_calls: z.boolean().optional(),
    text: z.object({ format: TextFormatSchema.optional() }).strict().optional(),
    stream: z.boolean().optional(),
    background: z.boolean().optional(),
    store: z.boolean().optional(),
    metadata: z.record(z.string().max(64), z.string().max(512)).optional(),
    user: z.string().max(256).optional(),
    include: z
      .array(z.string())
      .max(0, 'include is not supported: every response carries what it has')
      .optional(),
    truncation: z.literal('disabled').optional(),
  })
  .strict();
export type ResponseRequest = z.infer<typeof ResponseRequestSchema>;

// Fields OpenAI defines that the agent's own models and settings decide (400 naming them).
const REFUSED_FIELDS: Record<string, string> = {
  temperature: "sampling is set by the agent's models",
  top_p: "sampling is set by the agent's models",
  top_logprobs: 'log probabilities are not available',
  max_output_tokens: "the agent's steps decide the answer's length",
  max_tool_calls: "the agent's planner decides how many tools it calls",
  reasoning: "reasoning is set by the agent's models",
  service_tier: 'service tiers are not supported',
  prompt: 'stored prompts are not supported: send instructions and input',
  prompt_cache_key: 'prompt caching is not supported',
  prompt_cache_retention: 'prompt caching is not supported',
  safety_identifier: 'safety identifiers are not supported; use user',
  conversation: 'conversations are not supported: use previous_response_id',
  stream_options: 'stream options are not supported',
  context_management: 'context management is set by the agent',
};

/** The id of a response: `resp_` and its uuid's 32 hex digits. */
export function responseIdOf(uuid: string): string {
  return `resp_${uuid.replace(/-/g, '')}`;
}

/** The uuid a response id names, or null when it is not one of ours. */
export function uuidOfResponseId(id: string): string | null {
  const m = /^resp_([0-9a-f]{8})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{12})$/.exec(id);
  return m ? m.slice(1).join('-') : null;
}

/** What a request asks of its turn, read from its input items. */
export type ResponseTurn =
  | { kind: 'message'; prompt: string; history: HistoryMessage[]; param: string }
  | { kind: 'results'; results: { callId: string; output: string; param: string }[] };

/**
 * Parses the body, refusing what Switchyard cannot honour with a 400 in OpenAI's shape whose
 * `param` names the field. Fields sent as `null` count as absent.
 */
export function parseResponseRequest(raw: unknown): ResponseRequest {
  const req = parseOpenAiBody(raw, ResponseRequestSchema, REFUSED_FIELDS);
  if (req.store === false) {
    throw OpenAiException.unsupported(
      'store',
      'store: false is not supported: every response is a run, which is stored',
      OpenAiErrorCode.UnsupportedValue,
    );
  }
  if (req.parallel_tool_calls === false) {
    throw OpenAiException.unsupported(
      'parallel_tool_calls',
      'parallel_tool_calls: false is not supported: the planner may call several tools in one step',
      OpenAiErrorCode.UnsupportedValue,
    );
  }
  if (req.background && req.stream) {
    throw OpenAiException.unsupported(
      'stream',
      'a background response is not streamed: poll GET /v1/responses/{id}',
      OpenAiErrorCode.UnsupportedValue,
    );
  }
  if (req.metadata && Object.keys(req.metadata).length > 16) {
    throw OpenAiException.invalid('metadata', 'metadata has at most 16 keys');
  }
  if (req.user !== undefined && !UserIdSchema.safeParse(req.user).success) {
    throw OpenAiException.invalid('user', 'user must be 1 to 200 characters');
  }
  const names = new Set<string>();
  (req.tools ?? []).forEach((t, i) => {
    if (names.has(t.name)) {
      throw OpenAiException.invalid(`tools[${i}].name`, `two tools are named "${t.name}"`);
    }
    names.add(t.name);
    if (t.parameters && !compiles(t.parameters)) {
      throw OpenAiException.invalid(`tools[${i}].parameters`, 'the parameters are not a valid JSON Schema');
    }
  });
  const format = req.text?.format;
  if (format?.type === 'json_schema' && !compiles(format.schema)) {
    throw OpenAiException.invalid('text.format.schema', 'the schema is not a valid JSON Schema');
  }
  turnOf(req);
  return req;
}

/** Nest pipe: `parseResponseRequest`. */
export class ResponseRequestPipe implements PipeTransform<unknown, ResponseRequest> {
  transform(value: unknown): ResponseRequest {
    return parseResponseRequest(value);
  }
}

/**
 * The turn the input asks for: a user message last starts a turn (its text the prompt, the items
 * before it the conversation's earlier messages); `function_call_output` items last are the
 * results of the client functions a paused run waits for (the items before them are the
 * conversation the run already has).
 */
export function turnOf(req: ResponseRequest): ResponseTurn {
  if (typeof req.input === 'string') {
    if (!req.input.trim()) {
      throw OpenAiException.invalid('input', 'the input has no text');
    }
    return { kind: 'message', prompt: req.input, history: [], param: 'input' };
  }
  const items = req.input;
  const lastIndex = items.length - 1;
  const last = items[lastIndex];
  if (last.type === 'function_call_output') {
    let first = items.length;
    while (first > 0 && items[first - 1].type === 'function_call_output') {
      first--;
    }
    const results = items.slice(first).map((item, k) => {
      const out = item as z.infer<typeof FunctionCallOutputItem>;
      return {
        callId: out.call_id,
        output: typeof out.output === 'string' ? out.output : out.output.map((p) => p.text).join(''),
        param: `input[${first + k}].call_id`,
      };
    });
    const seen = new Set<string>();
    for (const r of results) {
      if (seen.has(r.callId)) {
        throw OpenAiException.invalid(r.param, `two results for the call "${r.callId}"`);
      }
      seen.add(r.callId);
    }
    return { kind: 'results', results };
  }
  if (last.type === 'function_call' || last.role !== 'user') {
    throw OpenAiException.invalid(
      `input[${lastIndex}]`,
      'the last input item must be a user message (a new turn) or function_call_output items (results of the function calls the run waits for)',
    );
  }
  const prompt = textOfContent(last.content);
  if (!prompt.trim()) {
    throw OpenAiException.invalid(`input[${lastIndex}].content`, 'the last user message has no text');
  }
  return {
    kind: 'message',
    prompt,
    history: historyOf(items.slice(0, -1)),
    param: `input[${lastIndex}].content`,
  };
}

/** What a request's tools and text format ask of the run. */
export function clientOptionsOf(req: ResponseRequest): ClientRequestOptions {
  const format = req.text?.format;
  return {
    // tool_choice "none": the client's functions are not offered (the agent's own tools stay the agent's).
    ...(req.tools?.length && req.tool_choice !== 'none'
      ? {
          client_tools: req.tools.map((t) => ({
            type: 'function' as const,
            function: {
              name: t.name,
              ...(t.description ? { description: t.description } : {}),
              ...(t.parameters ? { parameters: t.parameters } : {}),
              ...(t.strict !== undefined ? { strict: t.strict } : {}),
            },
          })),
        }
      : {}),
    ...(format?.type === 'json_object' ? { response_format: { type: 'json_object' as const } } : {}),
    ...(format?.type === 'json_schema'
      ? {
          response_format: {
            type: 'json_schema' as const,
            json_schema: {
              name: format.name,
              schema: format.schema,
              ...(format.description ? { description: format.description } : {}),
              ...(format.strict !== undefined ? { strict: format.strict } : {}),
            },
          },
        }
      : {}),
  };
}

function textOfContent(content: z.infer<typeof MessageItem>['content']): string {
  return typeof content === 'string' ? content : content.map((p) => p.text).join('');
}

/**
 * Earlier input items as chat history: developer messages count as system ones; function calls
 * and their results are kept as the assistant's text (as chat completions keeps them).
 */
function historyOf(items: readonly ResponseInputItem[]): HistoryMessage[] {
  return items.flatMap((item): HistoryMessage[] => {
    switch (item.type) {
      case 'function_call':
        return [{ role: 'assistant', content: `[called ${item.name}(${item.arguments})]` }];
      case 'function_call_output': {
        const text = typeof item.output === 'string' ? item.output : item.output.map((p) => p.text).join('');
        return [{ role: 'assistant', content: `[result of ${item.call_id}: ${text}]` }];
      }
      default: {
        const text = textOfContent(item.content);
        const role = item.role === 'developer' ? 'system' : item.role;
        return text ? [{ role, content: text }] : [];
      }
    }
  });
}
