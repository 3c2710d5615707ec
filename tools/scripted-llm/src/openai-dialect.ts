import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { type Conversation, type NativeJson, type RenderedReply, contentText } from './script.engine';
import { splitArguments, splitWords } from './streaming';

// OpenAI: POST /v1/chat/completions — the request as a conversation, the reply as a
// `chat.completion` or as its SSE chunks (vendor-dialects.ts has Anthropic's and Ollama's).

const SYSTEM_FINGERPRINT = 'fp_scripted';

export const ChatRequestSchema = z.looseObject({
  model: z.string().optional(),
  messages: z.array(z.looseObject({ role: z.string(), content: z.unknown().optional() })).min(1),
  tools: z
    .array(
      z.looseObject({
        name: z.string().optional(),
        function: z.looseObject({ name: z.string() }).optional(),
      }),
    )
    .nullish(),
  functions: z.array(z.looseObject({ name: z.string() })).nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
});
type ChatRequest = z.infer<typeof ChatRequestSchema>;

/** A completion's id, time and model, the same in every chunk of it. */
export interface CompletionMeta {
  id: string;
  created: number;
  model: string;
}

export function completionMeta(model: string): CompletionMeta {
  return {
    id: `chatcmpl-${randomBytes(12).toString('hex')}`,
    created: Math.floor(Date.now() / 1000),
    model,
  };
}

function toolCallId(): string {
  return `call_${randomBytes(12).toString('hex')}`;
}

export function toConversation(body: ChatRequest, apiKey?: string): Conversation {
  const toolNames = [
    ...(body.tools ?? []).map((t) => t.function?.name ?? t.name),
    ...(body.functions ?? []).map((f) => f.name),
  ].filter((name): name is string => typeof name === 'string');
  const native = openAiNativeJson(body, toolNames);
  return {
    messages: body.messages.map((m) => ({ role: m.role, text: contentText(m.content) })),
    toolNames,
    ...(native ? { native } : {}),
    ...(apiKey ? { apiKey } : {}),
  };
}

/** `response_format` json_schema / json_object, or a forced function (`tool_choice`, legacy `function_call`). */
function openAiNativeJson(body: ChatRequest, toolNames: string[]): NativeJson | undefined {
  const format = body['response_format'] as
    { type?: string; json_schema?: { schema?: unknown; strict?: boolean | null } } | null | undefined;
  if (format?.type === 'json_schema') {
    const { schema, strict } = format.json_schema ?? {};
    return { via: 'json_schema', schema, ...(typeof strict === 'boolean' ? { strict } : {}) };
  }
  if (format?.type === 'json_object') {
    return { via: 'json_object' };
  }
  const choice = body['tool_choice'] as { function?: { name?: string } } | string | null | undefined;
  const legacy = body['function_call'] as { name?: string } | string | null | undefined;
  const forced =
    typeof choice === 'object' && choice?.function?.name
      ? choice.function.name
      : choice === 'required' && toolNames.length === 1
        ? toolNames[0]
        : typeof legacy === 'object' && legacy?.name
          ? legacy.name
          : undefined;
  if (!forced) {
    return undefined;
  }
  const fn = [...(body.tools ?? []).map((t) => t.function), ...(body.functions ?? [])].find(
    (f) => f?.name === forced,
  ) as { parameters?: unknown; strict?: boolean | null } | undefined;
  return {
    via: 'tool',
    tool: forced,
    schema: fn?.parameters,
    ...(typeof fn?.strict === 'boolean' ? { strict: fn.strict } : {}),
  };
}

/** The reply as one `chat.completion`. */
export function openAiCompletion(meta: CompletionMeta, rendered: RenderedReply): Record<string, unknown> {
  return {
    ...meta,
    object: 'chat.completion',
    system_fingerprint: SYSTEM_FINGERPRINT,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: rendered.content,
          refusal: null,
          ...(rendered.toolCalls.length
            ? {
                tool_calls: rendered.toolCalls.map((call) => ({
                  id: toolCallId(),
                  type: 'function',
                  function: { name: call.name, arguments: JSON.stringify(call.arguments) },
                })),
              }
            : {}),
        },
        logprobs: null,
        finish_reason: rendered.toolCalls.length ? 'tool_calls' : 'stop',
      },
    ],
    usage: rendered.usage,
  };
}

/**
 * The reply as SSE in OpenAI's framing: role chunk, content pieces, tool-call pieces, finish
 * chunk, usage chunk (the `data: [DONE]` frame that follows is the writer's).
 */
export function openAiChunkFrames(
  meta: CompletionMeta,
  rendered: RenderedReply,
  includeUsage: boolean,
): string[] {
  const choice = (delta: Record<string, unknown>, finishReason: string | null = null) => [
    { index: 0, delta, logprobs: null, finish_reason: finishReason },
  ];
  const frames: Record<string, unknown>[] = [
    { choices: choice({ role: 'assistant', content: '', refusal: null }) },
  ];
  for (const piece of splitWords(rendered.content ?? '')) {
    frames.push({ choices: choice({ content: piece }) });
  }
  rendered.toolCalls.forEach((call, index) => {
    // Like OpenAI: id, type and name in the first delta of each call, then the arguments in pieces.
    frames.push({
      choices: choice({
        tool_calls: [
          { index, id: toolCallId(), type: 'function', function: { name: call.name, arguments: '' } },
        ],
      }),
    });
    for (const piece of splitArguments(JSON.stringify(call.arguments))) {
      frames.push({ choices: choice({ tool_calls: [{ index, function: { arguments: piece } }] }) });
    }
  });
  frames.push({ choices: choice({}, rendered.toolCalls.length ? 'tool_calls' : 'stop') });
  if (includeUsage) {
    frames.push({ choices: [], usage: rendered.usage });
  }
  return frames.map((frame) => {
    const chunk = {
      id: meta.id,
      object: 'chat.completion.chunk',
      created: meta.created,
      model: meta.model,
      system_fingerprint: SYSTEM_FINGERPRINT,
      // OpenAI sends usage: null on every chunk but the last when usage was asked for.
      ...(includeUsage ? { usage: null } : {}),
      ...frame,
    };
    return `data: ${JSON.stringify(chunk)}\n\n`;
  });
}

export const DONE_FRAME = 'data: [DONE]\n\n';
