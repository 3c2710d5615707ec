import type { AIMessage, AIMessageChunk } from '@langchain/core/messages';
import { type Usage, ZERO_USAGE } from '@switchyard/contracts';

/** Token usage the server reported for one reply (zero when it reported none). */
export function usageOf(message: AIMessage | AIMessageChunk | undefined): Usage {
  const u = message?.usage_metadata;
  if (!u) {
    return { ...ZERO_USAGE };
  }
  return {
    prompt_tokens: u.input_tokens ?? 0,
    completion_tokens: u.output_tokens ?? 0,
    total_tokens: u.total_tokens ?? (u.input_tokens ?? 0) + (u.output_tokens ?? 0),
  };
}
