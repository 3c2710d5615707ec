/**
 * How often an LLM or Agent component calls its model again after a call that failed and may
 * pass (a 5xx, a 429, the network): RAGFlow's `max_retries` and `delay_after_error` (seconds),
 * as an **absolute count** — `max_retries: 3` is at most 4 calls, with `delay_after_error`
 * between them (seed 002: RAGFlow's own Python stacks its model layer's and its component's
 * retries; its Go port made the count absolute). Undefined when the canvas does not say: the
 * platform's redelivery of the task applies then.
 */
export interface LlmRetryPolicy {
  /** Calls at most (max_retries + 1). */
  attempts: number;
  delayMs: number;
}

/** RAGFlow's LLMParam default delay. */
const DEFAULT_DELAY_S = 2;

/** Why a component's retry params are invalid, or undefined (validate-canvas refuses them on save). */
export function llmRetryProblem(
  params: Record<string, unknown>,
): { field: string; message: string } | undefined {
  const retries = params['max_retries'];
  if (retries !== undefined && retries !== null && !(Number.isInteger(retries) && (retries as number) >= 0)) {
    return { field: 'max_retries', message: 'max_retries must be a non-negative integer' };
  }
  const delay = params['delay_after_error'];
  if (
    delay !== undefined &&
    delay !== null &&
    !(typeof delay === 'number' && Number.isFinite(delay) && delay >= 0 && delay <= 600)
  ) {
    return {
      field: 'delay_after_error',
      message: 'delay_after_error must be a number of seconds from 0 to 600',
    };
  }
  return undefined;
}

export function llmRetryPolicy(params: Record<string, unknown>): LlmRetryPolicy | undefined {
  const retries = params['max_retries'];
  if (typeof retries !== 'number' || !Number.isInteger(retries) || retries < 0) {
    return undefined;
  }
  const delay = params['delay_after_error'];
  const seconds = typeof delay === 'number' && Number.isFinite(delay) && delay >= 0 ? delay : DEFAULT_DELAY_S;
  return { attempts: retries + 1, delayMs: Math.round(seconds * 1000) };
}
