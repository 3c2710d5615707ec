import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import type { z } from 'zod';
import { type Usage, describeZodError } from '@switchyard/contracts';
import { extractJson } from './json-reply.util';
import { jsonSchemaErrors } from './json-schema.validator';
import { LlmCallException, classifyLlmError } from './llm-errors';
import type { ParserSpec } from './registry.store';
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

/**
 * Asks for a JSON reply that parses into `schema`. A reply that does not parse is answered with
 * the parse error and asked again; `maxRetries` counts the calls after the first, so
 * `maxRetries = 5` means at most 6 calls. When the registry sets a parser for the serving model
 * and role, the reply must also match its JSON Schema and its `max_retries` replaces `maxRetries`.
 * The last failure is a non-retryable error naming what was wrong, so the step fails clearly
 * instead of looping.
 */
export async function invokeStructured<S extends z.ZodType>(
  model: Pick<BaseChatModel, 'invoke'>,
  messages: BaseMessage[],
  schema: S,
  opts: { maxRetries: number; signal?: AbortSignal; label: string },
): Promise<StructuredCallResult<z.infer<S>>> {
  const parser = hasParser(model) ? await model.parser() : undefined;
  const maxRetries = parser?.max_retries ?? opts.maxRetries;
  const history = [...messages];
  const usages: Usage[] = [];
  let lastError = '';
  for (let call = 1; call <= maxRetries + 1; call++) {
    const reply = await model.invoke(history, { signal: opts.signal }).catch((err: unknown) => {
      throw classifyLlmError(err);
    });
    usages.push(usageOf(reply as AIMessage));
    const text = typeof reply.content === 'string' ? reply.content : JSON.stringify(reply.content);
    const checked = check(text, schema, parser, opts.label);
    if (checked.ok) {
      return { value: checked.value, usages, calls: call };
    }
    lastError = checked.error;
    history.push(
      new AIMessage(text),
      new HumanMessage(`Your reply was invalid: ${lastError}. Reply again with the JSON object only.`),
    );
  }
  throw new LlmCallException(
    `${opts.label}: the model's reply did not parse after ${maxRetries + 1} calls: ${lastError}`,
    'unparseable_reply',
    false,
  );
}

function check<S extends z.ZodType>(
  text: string,
  schema: S,
  parser: ParserSpec | undefined,
  label: string,
): { ok: true; value: z.infer<S> } | { ok: false; error: string } {
  const json = extractJson(text);
  if (!json.ok) {
    return json;
  }
  if (parser) {
    const wrong = jsonSchemaErrors(parser.schema, json.json, label);
    if (wrong) {
      return { ok: false, error: wrong };
    }
  }
  const parsed = schema.safeParse(json.json);
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, error: describeZodError(parsed.error) };
}
