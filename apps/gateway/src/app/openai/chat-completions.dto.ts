import { z } from 'zod';

const ContentPart = z.object({ type: z.string(), text: z.string().optional() }).passthrough();

/** The part of OpenAI's chat completion request Switchyard reads; other fields are accepted and ignored. */
export const ChatCompletionRequestSchema = z
  .object({
    model: z.string().min(1).max(128),
    messages: z
      .array(
        z
          .object({
            role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
            content: z.union([z.string(), z.array(ContentPart), z.null()]).optional(),
          })
          .passthrough(),
      )
      .min(1),
    stream: z.boolean().optional(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).passthrough().nullish(),
    user: z.string().max(256).optional(),
  })
  .passthrough();
export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequestSchema>;

/** Text of a message whether it came as a string or as content parts. */
export function textOf(content: ChatCompletionRequest['messages'][number]['content']): string {
  if (typeof content === 'string') {
    return content;
  }
  return (content ?? []).map((p) => p.text ?? '').join('');
}
