import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { type Conversation, type NativeJson, type RenderedReply, contentText } from './script.engine';

// The Anthropic Messages API and Ollama's chat/embed API, spoken by the scripted server so that
// langchain's ChatAnthropic, ChatOllama and OllamaEmbeddings can be tested against real HTTP. The
// same rules answer every dialect: a request becomes the same Conversation, a rule's rendered
// reply is framed the way each vendor frames it.

// ---------------------------------------------------------------------------------------------
// Anthropic: POST /v1/messages

export const AnthropicRequestSchema = z.looseObject({
  model: z.string(),
  max_tokens: z.number().int().min(1),
  system: z
    .union([z.string(), z.array(z.looseObject({ type: z.string(), text: z.string().optional() }))])
    .optional(),
  messages: z.array(z.looseObject({ role: z.enum(['user', 'assistant']), content: z.unknown() })).min(1),
  tools: z.array(z.looseObject({ name: z.string() })).nullish(),
  stream: z.boolean().nullish(),
});
export type AnthropicRequest = z.infer<typeof AnthropicRequestSchema>;

type Block = { type?: string; text?: unknown; content?: unknown };

/** A user message made only of tool_result blocks is a tool message (as OpenAI's role `tool`). */
export function anthropicConversation(body: AnthropicRequest, apiKey?: string): Conversation {
  const messages: Conversation['messages'] = [];
  if (body.system !== undefined) {
    messages.push({ role: 'system', text: contentText(body.system) });
  }
  for (const m of body.messages) {
    const blocks = Array.isArray(m.content) ? (m.content as Block[]) : undefined;
    if (m.role === 'user' && blocks?.length && blocks.every((b) => b?.type === 'tool_result')) {
      messages.push({ role: 'tool', text: blocks.map((b) => contentText(b.content)).join('\n') });
    } else {
      messages.push({ role: m.role, text: contentText(m.content) });
    }
  }
  const toolNames = (body.tools ?? []).map((t) => t.name);
  const native = anthropicNativeJson(body, toolNames);
  return {
    messages,
    toolNames,
    ...(native ? { native } : {}),
    ...(apiKey ? { apiKey } : {}),
  };
}

/** A forced tool (`tool_choice` `tool`, or `any` with one tool) or `output_config.format` / `output_format`. */
function anthropicNativeJson(body: AnthropicRequest, toolNames: string[]): NativeJson | undefined {
  const choice = body['tool_choice'] as { type?: string; name?: string } | undefined;
  const forced =
    choice?.type === 'tool' && choice.name
      ? choice.name
      : choice?.type === 'any' && toolNames.length === 1
        ? toolNames[0]
        : undefined;
  if (forced) {
    const tool = (body.tools ?? []).find((t) => t.name === forced) as { input_schema?: unknown } | undefined;
    return { via: 'tool', tool: forced, schema: tool?.input_schema };
  }
  const config = body['output_config'] as { format?: { type?: string; schema?: unknown } } | undefined;
  const legacy = body['output_format'] as { type?: string; schema?: unknown } | undefined;
  const format = config?.format?.type === 'json_schema' ? config.format : legacy;
  return format?.type === 'json_schema' ? { via: 'output_format', schema: format.schema } : undefined;
}

function anthropicContent(rendered: RenderedReply): Record<string, unknown>[] {
  return [
    ...(rendered.content ? [{ type: 'text', text: rendered.content }] : []),
    ...rendered.toolCalls.map((call) => ({
      type: 'tool_use',
      id: `toolu_${randomBytes(12).toString('hex')}`,
      name: call.name,
      input: call.arguments,
    })),
  ];
}

const stopReason = (rendered: RenderedReply) => (rendered.toolCalls.length ? 'tool_use' : 'end_turn');

export function anthropicMessage(rendered: RenderedReply, model: string): Record<string, unknown> {
  return {
    id: `msg_${randomBytes(12).toString('hex')}`,
    type: 'message',
    role: 'assistant',
    model,
    content: anthropicContent(rendered),
    stop_reason: stopReason(rendered),
    stop_sequence: null,
    usage: { input_tokens: rendered.usage.prompt_tokens, output_tokens: rendered.usage.completion_tokens },
  };
}

/** Anthropic's SSE events for a reply: message_start, one block per text/tool call, message_delta, message_stop. */
export function anthropicStreamEvents(
  rendered: RenderedReply,
  model: string,
  words: (text: string) => string[],
  pieces: (json: string) => string[],
): [string, Record<string, unknown>][] {
  const message = anthropicMessage(rendered, model);
  const events: [string, Record<string, unknown>][] = [
    [
      'message_start',
      {
        type: 'message_start',
        message: {
          ...message,
          content: [],
          stop_reason: null,
          usage: { input_tokens: rendered.usage.prompt_tokens, output_tokens: 0 },
        },
      },
    ],
  ];
  (message.content as Record<string, unknown>[]).forEach((block, index) => {
    if (block.type === 'text') {
      events.push([
        'content_block_start',
        { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
      ]);
      for (const text of words(block.text as string)) {
        events.push([
          'content_block_delta',
          { type: 'content_block_delta', index, delta: { type: 'text_delta', text } },
        ]);
      }
    } else {
      events.push([
        'content_block_start',
        { type: 'content_block_start', index, content_block: { ...block, input: {} } },
      ]);
      for (const partial_json of pieces(JSON.stringify(block.input))) {
        events.push([
          'content_block_delta',
          { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } },
        ]);
      }
    }
    events.push(['content_block_stop', { type: 'content_block_stop', index }]);
  });
  events.push([
    'message_delta',
    {
      type: 'message_delta',
      delta: { stop_reason: stopReason(rendered), stop_sequence: null },
      usage: { output_tokens: rendered.usage.completion_tokens },
    },
  ]);
  events.push(['message_stop', { type: 'message_stop' }]);
  return events;
}

/** Anthropic's error body. */
export function anthropicError(type: string, message: string): Record<string, unknown> {
  return { type: 'error', error: { type, message } };
}

// ---------------------------------------------------------------------------------------------
// Ollama: POST /api/chat, POST /api/embed

export const OllamaChatRequestSchema = z.looseObject({
  model: z.string(),
  messages: z.array(z.looseObject({ role: z.string(), content: z.unknown().optional() })).min(1),
  tools: z.array(z.looseObject({ function: z.looseObject({ name: z.string() }) })).nullish(),
  // Ollama streams unless told not to.
  stream: z.boolean().nullish(),
});
export type OllamaChatRequest = z.infer<typeof OllamaChatRequestSchema>;

export const OllamaEmbedRequestSchema = z.looseObject({
  model: z.string(),
  input: z.union([z.string(), z.array(z.string()).min(1)]),
});

export function ollamaConversation(body: OllamaChatRequest, apiKey?: string): Conversation {
  // `format`: "json" or a JSON Schema; Ollama has no forced tool call.
  const format = body['format'];
  const native: NativeJson | undefined =
    format === 'json'
      ? { via: 'format' }
      : typeof format === 'object' && format !== null
        ? { via: 'format', schema: format }
        : undefined;
  return {
    messages: body.messages.map((m) => ({ role: m.role, text: contentText(m.content) })),
    toolNames: (body.tools ?? []).map((t) => t.function.name),
    ...(native ? { native } : {}),
    ...(apiKey ? { apiKey } : {}),
  };
}

/** Ollama's chat frames: content pieces, tool calls (whole, as Ollama sends them), then `done`. */
export function ollamaChatFrames(
  rendered: RenderedReply,
  model: string,
  stream: boolean,
  words: (text: string) => string[],
): Record<string, unknown>[] {
  const base = () => ({ model, created_at: new Date().toISOString() });
  const toolCalls = rendered.toolCalls.map((call) => ({
    function: { name: call.name, arguments: call.arguments },
  }));
  const done = {
    done_reason: 'stop',
    done: true,
    total_duration: 1_000_000,
    load_duration: 1_000,
    prompt_eval_count: rendered.usage.prompt_tokens,
    prompt_eval_duration: 1_000,
    eval_count: rendered.usage.completion_tokens,
    eval_duration: 1_000,
  };
  if (!stream) {
    return [
      {
        ...base(),
        message: {
          role: 'assistant',
          content: rendered.content ?? '',
          ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
        },
        ...done,
      },
    ];
  }
  const frames: Record<string, unknown>[] = words(rendered.content ?? '').map((content) => ({
    ...base(),
    message: { role: 'assistant', content },
    done: false,
  }));
  if (toolCalls.length) {
    frames.push({
      ...base(),
      message: { role: 'assistant', content: '', tool_calls: toolCalls },
      done: false,
    });
  }
  frames.push({ ...base(), message: { role: 'assistant', content: '' }, ...done });
  return frames;
}
