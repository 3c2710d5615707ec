import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import type { z } from 'zod';
import { type Usage, describeZodError } from '@switchyard/contracts';
import { extractJson } from './json-reply.util';
import { jsonSchemaErrors } from './json-schema.validator';
import { LlmCallException, classifyLlmError } from './llm-errors';
import type { ParserSpec } from './registry.store';
import { jsonSchemaOf, strictSchemaOf, withoutAddedNulls } from './native-schema.util';
import { RegistryChatModel } from './registry-chat-model';
import { type StructuredRequest, type StructuredUse, withPromptInstruction } from './structured-binding';
import { usageOf } from './usage';

export interface StructuredCallResult<T> {
  value: T;
  /** Usage of every call made, in order (the retries cost tokens too). */
  usages: Usage[];
  calls: number;
}

/** A registry chat model knows the reply parser the registry sets for its model and role. */
function hasParser(model: unknown): model is { parser(): Promise<ParserSpec | undefined> } {
  return typeof (model as { parser?: unknown } | null)?.parser === 'function';
}

export interface StructuredCallOptions {
  maxRetries: number;
  signal?: AbortSignal;
  /** Names the call in errors, and (made safe) the schema / forced tool sent to the vendor. */
  label: string;
  /**
   * For models that declare `structured_output: prompt` only: the reply's shape as the prompt
   * describes it (`{"answer": "<…>"}`); default: the JSON Schema itself. Models with a native
   * mechanism never see it: they get the schema through the vendor's API.
   */
  promptShape?: string;
  /**
   * The JSON Schema sent with the request instead of the one derived from the zod schema (a
   * workflow's own, say); the reply is checked against the zod schema only, so a caller that
   * takes any JSON passes `z.unknown()`.
   */
  jsonSchema?: Record<string, unknown>;
}

/**
 * Asks for a reply that parses into `schema`. The registry's model declares how
 * (`structured_output`): natively, with the JSON Schema derived from `schema` (or the registry's
 * parser for the model and role) sent as the vendor's response format or forced tool, or, for
 * `prompt` models only, with the JSON asked for in the system prompt. A reply that does not parse
 * or validate is answered with the error and the attempt count and asked again; `maxRetries` counts
 * the calls after the first, so `maxRetries = 5` means at most 6 calls. A registry parser's
 * `max_retries` replaces `maxRetries`, and the reply must match its JSON Schema too. The last
 * failure is a non-retryable `unparseable_reply` naming what was wrong, so the step fails clearly
 * instead of looping.
 */
export async function invokeStructured<S extends z.ZodType>(
  model: Pick<BaseChatModel, 'invoke'>,
  messages: BaseMessage[],
  schema: S,
  opts: StructuredCallOptions,
): Promise<StructuredCallResult<z.infer<S>>> {
  const parser = hasParser(model) ? await model.parser() : undefined;
  const maxRetries = parser?.max_retries ?? opts.maxRetries;
  const request = structuredRequest(schema, parser, opts);
  // A plain langchain model (not the registry's) cannot be asked natively: JSON in the prompt.
  const registry = model instanceof RegistryChatModel;
  const history = registry ? [...messages] : withPromptInstruction(messages, request.instruction);
  const usages: Usage[] = [];
  const total = maxRetries + 1;
  let lastError = '';
  for (let call = 1; call <= total; call++) {
    const pending = registry
      ? model.invoke(history, { signal: opts.signal, structured: request })
      : model.invoke(history, { signal: opts.signal });
    const reply = (await pending.catch((err: unknown) => {
      throw classifyLlmError(err);
    })) as AIMessage;
    usages.push(usageOf(reply));
    const use = reply.additional_kwargs?.['structured_output'] as StructuredUse | undefined;
    const { text, json } = payloadOf(reply, use);
    const checked = check(json, schema, parser, request, opts);
    if (checked.ok) {
      return { value: checked.value, usages, calls: call };
    }
    lastError = checked.error;
    const native = use !== undefined && use.mode !== 'prompt';
    history.push(
      new AIMessage(text),
      new HumanMessage(
        `Your reply (attempt ${call} of ${total}) was invalid: ${lastError}. ` +
          (call < total ? `Reply again (attempt ${call + 1} of ${total})` : 'Reply again') +
          (native ? ', correcting it.' : ' with the JSON object only.'),
      ),
    );
  }
  throw new LlmCallException(
    `${opts.label}: the model's reply did not parse after ${total} calls: ${lastError}`,
    'unparseable_reply',
    false,
  );
}

function structuredRequest(
  schema: z.ZodType,
  parser: ParserSpec | undefined,
  opts: StructuredCallOptions,
): StructuredRequest {
  // The registry's parser is what the reply must match in the end, so it is what the vendor gets.
  const json = parser?.schema ?? opts.jsonSchema ?? jsonSchemaOf(schema);
  const shape = opts.promptShape ?? `one JSON object matching this JSON Schema: ${JSON.stringify(json)}`;
  return {
    name: opts.label.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64) || 'reply',
    schema: json,
    strictSchema: strictSchemaOf(json),
    instruction: `Reply with one JSON object and nothing else: ${shape}`,
  };
}

/** The reply's structured value: the forced tool call's arguments, else the text. */
function payloadOf(
  reply: AIMessage,
  use: StructuredUse | undefined,
): { text: string; json: ReturnType<typeof extractJson> } {
  const call = reply.tool_calls?.find((c) => !use?.tool || c.name === use.tool);
  if (call) {
    return { text: JSON.stringify(call.args), json: { ok: true, json: call.args } };
  }
  const invalid = reply.invalid_tool_calls?.[0];
  if (invalid) {
    const text = invalid.args ?? '';
    return { text, json: extractJson(text) };
  }
  const text = textOf(reply.content);
  return { text, json: extractJson(text) };
}

function textOf(content: AIMessage['content']): string {
  if (typeof content === 'string') {
    return content;
  }
  return content
    .map((part) => (part.type === 'text' && typeof part['text'] === 'string' ? part['text'] : ''))
    .join('');
}

function check<S extends z.ZodType>(
  parsedJson: ReturnType<typeof extractJson>,
  schema: S,
  parser: ParserSpec | undefined,
  request: StructuredRequest,
  { label }: Pick<StructuredCallOptions, 'label'>,
): { ok: true; value: z.infer<S> } | { ok: false; error: string } {
  if (!parsedJson.ok) {
    return parsedJson;
  }
  // OpenAI's strict mode makes optional properties required and nullable, and other models write
  // null for "absent" too: a null where the schema allows none means the property was left out.
  const json = withoutAddedNulls(parsedJson.json, request.schema);
  if (parser) {
    const wrong = jsonSchemaErrors(parser.schema, json, label);
    if (wrong) {
      return { ok: false, error: wrong };
    }
  }
  // With a parser, the schema sent was the parser's: the zod schema's own optional properties too.
  const parsed = schema.safeParse(parser ? withoutAddedNulls(json, jsonSchemaOf(schema)) : json);
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, error: describeZodError(parsed.error) };
}
