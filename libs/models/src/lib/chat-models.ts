import type { AIMessage, AIMessageChunk } from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';
import type { LlmEnv } from '@switchyard/config';
import { type Usage, ZERO_USAGE } from '@switchyard/contracts';

/**
 * Builds langchain chat clients for any OpenAI-compatible server (the `SWITCHYARD_LLM_*`
 * variables). The model registry of later work plugs in here.
 */
export class ChatModels {
  constructor(private readonly cfg: LlmEnv) {}

  get modelName(): string {
    return this.cfg.SWITCHYARD_LLM_MODEL;
  }

  /** `role` names the node asking (planner, reflection, output, intake, title…): the agent may pin a model per role. */
  chat(opts: { role?: string; temperature?: number } = {}): ChatOpenAI {
    return new ChatOpenAI({
      model: this.cfg.SWITCHYARD_LLM_MODEL,
      apiKey: this.cfg.SWITCHYARD_LLM_API_KEY,
      configuration: { baseURL: this.cfg.SWITCHYARD_LLM_BASE_URL },
      timeout: this.cfg.SWITCHYARD_LLM_TIMEOUT_MS,
      // Retries of the transport itself stay small: JetStream redelivery is the outer retry.
      maxRetries: this.cfg.SWITCHYARD_LLM_MAX_RETRIES,
      streamUsage: true,
      temperature: opts.temperature ?? 0,
    });
  }
}

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

/** An LLM error a retry cannot fix (bad request, auth): the run fails with it instead of looping. */
export class LlmCallException extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'LlmCallException';
  }
}

/** Maps a client error to retryable (429, 5xx, network, timeout) or not (other 4xx). */
export function classifyLlmError(err: unknown): LlmCallException {
  const e = err as { status?: number; message?: string; name?: string };
  const status = typeof e?.status === 'number' ? e.status : undefined;
  const message = `LLM call failed${status ? ` (HTTP ${status})` : ''}: ${e?.message ?? String(err)}`;
  if (status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 429) {
    return new LlmCallException(message, 'llm_rejected', false);
  }
  return new LlmCallException(message, 'llm_unavailable', true);
}
