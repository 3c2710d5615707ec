import { type RunErrorCode } from '@switchyard/contracts';
/** An LLM error a retry cannot fix (bad request, auth): the run fails with it instead of looping. */
export class LlmCallException extends Error {
  constructor(
    message: string,
    readonly code: RunErrorCode,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'LlmCallException';
  }
}

/** The HTTP status a client error carries (OpenAI/Anthropic SDKs: `status`; ollama-js: `status_code`). */
export function httpStatusOf(err: unknown): number | undefined {
  const e = err as { status?: unknown; status_code?: unknown; response?: { status?: unknown } } | null;
  for (const v of [e?.status, e?.status_code, e?.response?.status]) {
    if (typeof v === 'number' && v >= 100 && v < 600) {
      return v;
    }
  }
  return undefined;
}

/**
 * How long the server asked us to wait (`retry-after-ms`, or `retry-after` in seconds or as an
 * HTTP date), in ms; undefined when it did not say.
 */
export function retryAfterMsOf(err: unknown, now = Date.now()): number | undefined {
  const headers = (err as { headers?: unknown } | null)?.headers;
  const get = (name: string): string | undefined => {
    if (!headers || typeof headers !== 'object') {
      return undefined;
    }
    if (typeof (headers as Headers).get === 'function') {
      return (headers as Headers).get(name) ?? undefined;
    }
    const v = (headers as Record<string, unknown>)[name];
    return typeof v === 'string' ? v : undefined;
  };
  const ms = Number(get('retry-after-ms'));
  if (get('retry-after-ms') !== undefined && Number.isFinite(ms) && ms >= 0) {
    return ms;
  }
  const raw = get('retry-after');
  if (raw === undefined || raw.trim() === '') {
    return undefined;
  }
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) {
    return seconds * 1000;
  }
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Maps a client error to retryable (429, 5xx, network, timeout) or not (other 4xx). */
export function classifyLlmError(err: unknown): LlmCallException {
  if (err instanceof LlmCallException) {
    return err;
  }
  const e = err as { message?: string } | null;
  const status = httpStatusOf(err);
  const message = `LLM call failed${status ? ` (HTTP ${status})` : ''}: ${e?.message ?? String(err)}`;
  if (status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 429) {
    return new LlmCallException(message, 'llm_rejected', false);
  }
  return new LlmCallException(message, 'llm_unavailable', true);
}

/** Replaces every occurrence of the secrets in a text (an upstream error may quote the key). */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) {
    if (s.length >= 4) {
      out = out.split(s).join('[redacted]');
    }
  }
  return out;
}
