import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import type { z } from 'zod';
import type { Usage } from '@switchyard/contracts';
import { LlmCallException, classifyLlmError, usageOf } from './chat-models';
import { parseJsonReply } from './json-reply.util';

export interface StructuredCallResult<T> {
  value: T;
  /** Usage of every call made, in order (the retries cost tokens too). */
  usages: Usage[];
  calls: number;
}

/**
 * Asks for a JSON reply that parses into `schema`. A reply that does not parse is answered with
 * the parse error and asked again; `maxRetries` counts the calls after the first, so
 * `maxRetries = 5` means at most 6 calls. The last failure is a non-retryable error naming what
 * was wrong, so the step fails clearly instead of looping.
 */
export async function invokeStructured<S extends z.ZodType>(
  model: Pick<BaseChatModel, 'invoke'>,
  messages: BaseMessage[],
  schema: S,
  opts: { maxRetries: number; signal?: AbortSignal; label: string },
): Promise<StructuredCallResult<z.infer<S>>> {
  const history = [...messages];
  const usages: Usage[] = [];
  let lastError = '';
  for (let call = 1; call <= opts.maxRetries + 1; call++) {
    const reply = await model.invoke(history, { signal: opts.signal }).catch((err: unknown) => {
      throw classifyLlmError(err);
    });
    usages.push(usageOf(reply as AIMessage));
    const text = typeof reply.content === 'string' ? reply.content : JSON.stringify(reply.content);
    const parsed = parseJsonReply(text, schema);
    if (parsed.ok) {
      return { value: parsed.value, usages, calls: call };
    }
    lastError = parsed.error;
    history.push(
      new AIMessage(text),
      new HumanMessage(`Your reply was invalid: ${lastError}. Reply again with the JSON object only.`),
    );
  }
  throw new LlmCallException(
    `${opts.label}: the model's reply did not parse after ${opts.maxRetries + 1} calls: ${lastError}`,
    'unparseable_reply',
    false,
  );
}
