import { type RenderedError, toApiError } from '../http/api-error';
import { ApiErrorCode } from '../http/api.exception';
import { RagflowCode, RagflowException } from './ragflow.dto';

/** The RAGFlow code for one of the API's own errors. */
function codeOf(code: ApiErrorCode): RagflowCode {
  switch (code) {
    case ApiErrorCode.Unauthorized:
      return RagflowCode.AuthenticationError;
    case ApiErrorCode.InvalidRequest:
    case ApiErrorCode.PayloadTooLarge:
    case ApiErrorCode.UnsupportedMediaType:
      return RagflowCode.ArgumentError;
    case ApiErrorCode.NotFound:
      return RagflowCode.DataError;
    case ApiErrorCode.ThreadBusy:
    case ApiErrorCode.RunFinished:
    case ApiErrorCode.RunNotWaiting:
    case ApiErrorCode.Conflict:
    case ApiErrorCode.RateLimited:
      return RagflowCode.OperatingError;
    case ApiErrorCode.Internal:
    case ApiErrorCode.RunFailed:
    case ApiErrorCode.Unavailable:
      return RagflowCode.ServerError;
  }
}

/**
 * The error as RAGFlow answers it: HTTP 200 with `{code, message, data: false}` (its SDK reads
 * `code`), or — once a stream has begun — one `data:` frame with that body and `[DONE]`. No
 * `Retry-After`: the answer is a 200.
 */
export function renderRagflowError(exception: unknown): RenderedError {
  if (exception instanceof RagflowException) {
    return rendered(exception.code, exception.message, false);
  }
  const error = toApiError(exception);
  return rendered(codeOf(error.code), error.message, error.status >= 500);
}

function rendered(code: RagflowCode, message: string, serverFault: boolean): RenderedError {
  const body = { code, message, data: false };
  return { status: 200, body, streamFrame: `data:${JSON.stringify(body)}\n\ndata:[DONE]\n\n`, serverFault };
}
