import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { ApiErrorCode, ApiException } from '../http/api.exception';
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
 * Errors of RAGFlow's agent API as RAGFlow answers them: HTTP 200 with `{code, message, data:
 * false}` (its SDK reads `code`), or — once a stream has begun — one `data:` frame with that body
 * and `[DONE]`.
 */
@Catch()
export class RagflowExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('RAGFlow');

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    let code: RagflowCode;
    let message: string;
    if (exception instanceof RagflowException) {
      ({ code, message } = exception);
    } else if (exception instanceof ApiException) {
      code = codeOf(exception.code);
      message = exception.message;
    } else if (exception instanceof HttpException) {
      code = exception.getStatus() === 404 ? RagflowCode.DataError : RagflowCode.ArgumentError;
      message = exception.getStatus() === 404 ? 'no such route' : exception.message;
    } else {
      this.logger.error({ err: exception, msg: 'request failed' });
      code = RagflowCode.ServerError;
      message = 'internal error';
    }
    const body = { code, message, data: false };
    if (res.headersSent) {
      res.write(`data:${JSON.stringify(body)}\n\ndata:[DONE]\n\n`);
      res.end();
      return;
    }
    res.status(200).json(body);
  }
}
