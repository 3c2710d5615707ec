import { z } from 'zod';
import { embeddingToBase64, hashEmbedding } from './hash-embedding';
import { wordCount } from './script.engine';
import { DEFAULT_EMBEDDING_DIMENSIONS, type Script } from './script.schema';
import type { OllamaEmbedRequestSchema } from './vendor-dialects';

// Embeddings: a scripted input's vector, else a deterministic hash embedding; in OpenAI's and
// Ollama's framing.

export const EmbeddingsRequestSchema = z.looseObject({
  model: z.string().optional(),
  input: z.union([z.string(), z.array(z.string()).min(1)]),
  dimensions: z.number().int().min(1).max(8192).nullish(),
  encoding_format: z.enum(['float', 'base64']).nullish(),
});
type EmbeddingsRequest = z.infer<typeof EmbeddingsRequestSchema>;
type OllamaEmbedRequest = z.infer<typeof OllamaEmbedRequestSchema>;

/** The inputs of a request (one string, or a list). */
export const inputsOf = (input: string | string[]): string[] => (typeof input === 'string' ? [input] : input);

/** A scripted input's vector, else the hash embedding (of the scripted vectors' size, if any). */
export function vectorFor(script: Script, text: string, asked?: number): number[] {
  const scripted = script.embeddings?.vectors ?? {};
  if (Object.hasOwn(scripted, text)) {
    return scripted[text];
  }
  const size = Object.values(scripted)[0]?.length;
  return hashEmbedding(text, asked ?? script.embeddings?.dimensions ?? size ?? DEFAULT_EMBEDDING_DIMENSIONS);
}

/** `POST /v1/embeddings`'s answer. */
export function openAiEmbeddings(script: Script, body: EmbeddingsRequest) {
  const inputs = inputsOf(body.input);
  const tokens = inputs.reduce((sum, text) => sum + wordCount(text), 0);
  return {
    object: 'list',
    data: inputs.map((text, index) => {
      const vector = vectorFor(script, text, body.dimensions ?? undefined);
      return {
        object: 'embedding',
        index,
        embedding: body.encoding_format === 'base64' ? embeddingToBase64(vector) : vector,
      };
    }),
    model: body.model ?? 'scripted-embeddings',
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}

/** `POST /api/embed`'s (Ollama) answer. */
export function ollamaEmbeddings(script: Script, body: OllamaEmbedRequest) {
  const inputs = inputsOf(body.input);
  return {
    model: body.model,
    embeddings: inputs.map((text) => vectorFor(script, text)),
    prompt_eval_count: inputs.reduce((sum, text) => sum + wordCount(text), 0),
  };
}
