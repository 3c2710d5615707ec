import { type RenderedError, toApiError } from '../http/api-error';
import { ApiErrorCode } from '../http/api.exception';
import { OpenAiException } from './openai.exception';

interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string };
}

/**
 * An error of the OpenAI-compatible routes in OpenAI's shape, so its client libraries raise their
 * own error classes (`NotFoundError`, `BadRequestError`, …): `{error: {message, type, param, code}}`.
 * Validation details become `param` (the first failing field); a stream already started ends
 * with it as an error event.
 */
export function renderOpenAiError(exception: unknown): RenderedError {
  if (exception instanceof OpenAiException) {
    return rendered(exception.status, {
      message: exception.message,
      type: 'invalid_request_error',
      param: exception.param,
      code: exception.code,
    });
  }
  const error = toApiError(exception);
  // Validation details: the first failing field is OpenAI's `param`.
  const details = Array.isArray(error.details)
    ? (error.details as { field?: string; message?: string }[])
    : [];
  const first = details[0];
  return rendered(
    error.status,
    {
      message: first?.message ? `${error.message}: ${first.field}: ${first.message}` : error.message,
      type: typeOf(error.code),
      param: first?.field ?? null,
      code: error.code,
    },
    error.retryAfter,
  );
}

function rendered(status: number, error: OpenAiErrorBody['error'], retryAfter?: number): RenderedError {
  const body: OpenAiErrorBody = { error };
  return {
    status,
    body,
    // A stream already started: end it with an error event rather than a second status line.
    streamFrame: `data: ${JSON.stringify(body)}\n\n`,
    ...(retryAfter !== undefined ? { retryAfter } : {}),
    serverFault: status >= 500,
  };
}

function typeOf(code: ApiErrorCode): string {
  switch (code) {
    case ApiErrorCode.Unauthorized:
      return 'authentication_error';
    case ApiErrorCode.RateLimited:
      return 'rate_limit_error';
    case ApiErrorCode.Internal:
    case ApiErrorCode.RunFailed:
    case ApiErrorCode.Unavailable:
      return 'server_error';
    case ApiErrorCode.InvalidRequest:
    case ApiErrorCode.NotFound:
    case ApiErrorCode.ThreadBusy:
    case ApiErrorCode.RunFinished:
    case ApiErrorCode.RunNotWaiting:
    case ApiErrorCode.Conflict:
    case ApiErrorCode.PayloadTooLarge:
    case ApiErrorCode.UnsupportedMediaType:
      return 'invalid_request_error';
  }
}
