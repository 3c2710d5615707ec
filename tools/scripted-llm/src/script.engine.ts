import type { Reply, Rule, Script, When } from './script.schema';
import { renderDeep, renderTemplate, type TemplateContext } from './template';

// Pure part of the server: what a chat request looks like to the script, which rule answers it,
// and the reply that rule renders.

export interface ConversationMessage {
  role: string;
  /** Text of the message (array content reduced to its text parts). */
  text: string;
}

/** How a request asked for JSON through the vendor's API (not in its prompt text). */
export interface NativeJson {
  /** OpenAI `response_format` type, a forced tool (OpenAI / Anthropic), Ollama `format`, Anthropic `output_config.format`. */
  via: 'json_schema' | 'json_object' | 'tool' | 'format' | 'output_format';
  /** The forced tool's name (via `tool`). */
  tool?: string;
  /** The JSON Schema the request sent (response format, forced tool's parameters, `format`). */
  schema?: unknown;
  /** OpenAI's `strict` flag of that schema, when the request set one. */
  strict?: boolean;
}

export interface Conversation {
  messages: ConversationMessage[];
  /** Set when the request asked for JSON natively. */
  native?: NativeJson;
  /** Names of the tools (or legacy functions) the request offered. */
  toolNames: string[];
  /** The API key the request carried (bearer token or `x-api-key`), if any. */
  apiKey?: string;
}

export interface RenderedToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface RenderedReply {
  /** null when the reply only calls tools, as OpenAI does. */
  content: string | null;
  toolCalls: RenderedToolCall[];
  usage: Usage;
}

/** OpenAI content is a string, null, or an array of parts; only text parts count. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') {
    return content;
  }
  if (Array.isArray(content)) {
    return content
      .map((part: unknown) =>
        part !== null && typeof part === 'object' && typeof (part as { text?: unknown }).text === 'string'
          ? (part as { text: string }).text
          : '',
      )
      .join('');
  }
  return '';
}

export function wordCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

function last(messages: ConversationMessage[], role: string): ConversationMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role === role) {
      return messages[i];
    }
  }
  return undefined;
}

/** The last user message's text, or undefined if there is none. */
export function lastUserText(conv: Conversation): string | undefined {
  return last(conv.messages, 'user')?.text;
}

function systemText(conv: Conversation): string {
  // `developer` is OpenAI's newer name for the system role.
  return conv.messages
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map((m) => m.text)
    .join('\n');
}

export function matchesWhen(when: When | undefined, conv: Conversation): boolean {
  if (!when) {
    return true;
  }
  const { messages } = conv;
  if (when.system_includes !== undefined && !systemText(conv).includes(when.system_includes)) {
    return false;
  }
  if (when.user_includes !== undefined) {
    const user = lastUserText(conv);
    if (user === undefined || !user.includes(when.user_includes)) {
      return false;
    }
  }
  if (when.any_includes !== undefined) {
    const needle = when.any_includes;
    if (!messages.some((m) => m.text.includes(needle))) {
      return false;
    }
  }
  if (when.last_role !== undefined && messages[messages.length - 1]?.role !== when.last_role) {
    return false;
  }
  if (when.has_tools !== undefined && conv.toolNames.length > 0 !== when.has_tools) {
    return false;
  }
  if (when.tools_include !== undefined && !conv.toolNames.includes(when.tools_include)) {
    return false;
  }
  if (when.api_key !== undefined && conv.apiKey !== when.api_key) {
    return false;
  }
  if (when.count_role) {
    const { role, min = 0, max = Infinity } = when.count_role;
    const n = messages.filter((m) => m.role === role).length;
    if (n < min || n > max) {
      return false;
    }
  }
  return true;
}

/**
 * The first rule that matches and has uses left; counts the use in `used` (one counter per rule index).
 */
export function pickRule(script: Script, used: number[], conv: Conversation): Rule | undefined {
  for (const [i, rule] of script.rules.entries()) {
    if (rule.times !== undefined && (used[i] ?? 0) >= rule.times) {
      continue;
    }
    if (!matchesWhen(rule.when, conv)) {
      continue;
    }
    used[i] = (used[i] ?? 0) + 1;
    return rule;
  }
  return undefined;
}

export function templateContext(conv: Conversation): TemplateContext {
  return {
    lastUser: lastUserText(conv) ?? '',
    toolResult: last(conv.messages, 'tool')?.text ?? '',
    allText: conv.messages.map((m) => m.text).join('\n'),
    texts: conv.messages.map((m) => m.text),
  };
}

export function renderReply(reply: Reply, conv: Conversation): RenderedReply {
  const ctx = templateContext(conv);
  const text = reply.content === undefined ? '' : renderTemplate(reply.content, ctx);
  const toolCalls = (reply.tool_calls ?? []).map((call) => ({
    name: call.name,
    arguments: renderDeep(call.arguments, ctx) as Record<string, unknown>,
  }));
  const content = toolCalls.length > 0 && text === '' ? null : text;
  let usage: Usage;
  if (reply.usage) {
    usage = { ...reply.usage, total_tokens: reply.usage.prompt_tokens + reply.usage.completion_tokens };
  } else {
    // Rough but deterministic stand-ins for token counts.
    const prompt = conv.messages.reduce((sum, m) => sum + wordCount(m.text), 0);
    const completion =
      wordCount(text) + (toolCalls.length ? Math.ceil(JSON.stringify(toolCalls).length / 4) : 0);
    usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  }
  return { content, toolCalls, usage };
}

/** The text's JSON object or array, if the whole text is one (a scripted structured reply). */
export function scriptedJson(text: string | null): Record<string, unknown> | unknown[] | undefined {
  if (!text) {
    return undefined;
  }
  try {
    const value: unknown = JSON.parse(text.trim());
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A scripted JSON reply as the request asked for it: a forced tool gets the JSON as the tool
 * call's arguments, a response format gets it as the content. In strict mode a request that did
 * not ask natively gets prose around the JSON instead (a real model that ignores prompt-JSON), so
 * a client that relies on prompt-JSON fails to parse it. Replies that are not JSON pass unchanged.
 */
export function shapeForRequest(rendered: RenderedReply, conv: Conversation, strict: boolean): RenderedReply {
  const json = rendered.toolCalls.length === 0 ? scriptedJson(rendered.content) : undefined;
  if (json === undefined) {
    return rendered;
  }
  const native = conv.native;
  if (native?.via === 'tool' && native.tool && !Array.isArray(json)) {
    return { ...rendered, content: null, toolCalls: [{ name: native.tool, arguments: json }] };
  }
  if (!native && strict) {
    return {
      ...rendered,
      content: `Sure! Here is what you asked for: ${rendered.content ?? ''} Let me know if you need anything else.`,
    };
  }
  return rendered;
}
