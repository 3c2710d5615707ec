import type { BaseMessage } from '@langchain/core/messages';
import type { Usage } from '@switchyard/contracts';
import { type RegistryChatModel, classifyLlmError, usageOf } from '@switchyard/models';

/** The chat role a workflow's model calls serve (what an agent pins for its graph). */
export const PUPPY_CHAT_ROLE = 'graph';

/** One plain model call of a workflow edge: its reply as text (JSON for other content) and usage. */
export async function chatText(
  model: RegistryChatModel,
  messages: BaseMessage[],
  signal: AbortSignal,
): Promise<{ text: string; usage: Usage }> {
  const reply = await model.invoke(messages, { signal }).catch((err: unknown) => {
    throw classifyLlmError(err);
  });
  return {
    text: typeof reply.content === 'string' ? reply.content : JSON.stringify(reply.content),
    usage: usageOf(reply),
  };
}
