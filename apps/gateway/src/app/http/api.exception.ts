/** Error codes of the public API (API.md); mapped to HTTP statuses in one place. */
export enum ApiErrorCode {
  InvalidRequest = 'invalid_request',
  Unauthorized = 'unauthorized',
  NotFound = 'not_found',
  ThreadBusy = 'thread_busy',
  RunFinished = 'run_finished',
  RunNotWaiting = 'run_not_waiting',
  Conflict = 'conflict',
  PayloadTooLarge = 'payload_too_large',
  UnsupportedMediaType = 'unsupported_media_type',
  RateLimited = 'rate_limited',
  Internal = 'internal',
  RunFailed = 'run_failed',
  Unavailable = 'unavailable',
}

export function statusOf(code: ApiErrorCode): number {
  switch (code) {
    case ApiErrorCode.InvalidRequest:
      return 400;
    case ApiErrorCode.Unauthorized:
      return 401;
    case ApiErrorCode.NotFound:
      return 404;
    case ApiErrorCode.ThreadBusy:
    case ApiErrorCode.RunFinished:
    case ApiErrorCode.RunNotWaiting:
    case ApiErrorCode.Conflict:
      return 409;
    case ApiErrorCode.PayloadTooLarge:
      return 413;
    case ApiErrorCode.UnsupportedMediaType:
      return 415;
    case ApiErrorCode.RateLimited:
      return 429;
    case ApiErrorCode.Internal:
      return 500;
    case ApiErrorCode.RunFailed:
      return 502;
    case ApiErrorCode.Unavailable:
      return 503;
  }
}

/** A request the gateway answers with an error body `{error: {code, message, details?}}`. */
export class ApiException extends Error {
  constructor(
    readonly code: ApiErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'ApiException';
  }

  static notFound(what: string): ApiException {
    return new ApiException(ApiErrorCode.NotFound, `${what} not found`);
  }

  /** 400 `invalid_request` naming the field: `<field>: <message>`, the field in `details`. */
  static invalidField(field: string, message: string): ApiException {
    return new ApiException(ApiErrorCode.InvalidRequest, `${field}: ${message}`, [{ field, message }]);
  }
}
