/** The gateway's error codes (`error.code` in every error body), as the client reports them. */
export const API_ERROR_CODES = [
  'invalid_request',
  'unauthorized',
  'not_found',
  'thread_busy',
  'run_finished',
  'run_not_waiting',
  'conflict',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
  'internal',
  'run_failed',
  'unavailable',
] as const;
export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

/** An error answer of the gateway: its HTTP status, `error.code`, message and details. */
export class SwitchyardApiError extends Error {
  override readonly name = 'SwitchyardApiError';

  constructor(
    readonly status: number,
    /** One of {@link API_ERROR_CODES}, or `http_<status>` when the body was not the gateway's. */
    readonly code: ApiErrorCode | `http_${number}`,
    message: string,
    readonly details?: unknown,
    readonly requestId?: string,
  ) {
    super(message);
  }

  /** Whether the same request may be sent again (the gateway was busy or unreachable for a moment). */
  get transient(): boolean {
    return this.status === 429 || this.status === 502 || this.status === 503 || this.status === 504;
  }
}

/** The connection itself failed (refused, reset, timed out) before any answer. */
export class SwitchyardNetworkError extends Error {
  override readonly name = 'SwitchyardNetworkError';

  constructor(
    message: string,
    override readonly cause: unknown,
  ) {
    super(message);
  }
}

export async function errorOf(res: Response): Promise<SwitchyardApiError> {
  const text = await res.text().catch(() => '');
  let body: { error?: { code?: string; message?: string; details?: unknown; request_id?: string } } = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    // not the gateway's JSON (a proxy's page): keep the status
  }
  const code = body.error?.code;
  return new SwitchyardApiError(
    res.status,
    code && (API_ERROR_CODES as readonly string[]).includes(code)
      ? (code as ApiErrorCode)
      : `http_${res.status}`,
    body.error?.message ?? (text.slice(0, 200) || `HTTP ${res.status}`),
    body.error?.details,
    body.error?.request_id ?? res.headers.get('x-request-id') ?? undefined,
  );
}
