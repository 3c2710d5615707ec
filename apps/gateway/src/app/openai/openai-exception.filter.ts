import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { ApiErrorCode, ApiException, statusOf } from '../http/api.exception';
import { OpenAiException } from './openai.exception';

interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string };
}

/**
 * Errors of the OpenAI-compatible routes in OpenAI's shape, so its client libraries raise their
 * own error classes (`NotFoundError`, `BadRequestError`, …): `{error: {message, type, param, code}}`.
 * Validation details become `param` (the first failing field).
 */
@Catch()
export class OpenAiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('OpenAI');

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    const { status, body } = toOpenAiError(exception);
    if (status >= 500) {
      this.logger.error({ err: exception, msg: 'request failed' });
    }
    if (res.headersSent) {
      // A stream already started: end it with an error event rather than a second status line.
      res.write(`data: ${JSON.stringify(body)}\n\n`);
      res.end();
      return;
    }
    res.status(status).json(body);
  }
}

export function toOpenAiError(exception: unknown): { status: number; body: OpenAiErrorBody } {
  if (exception instanceof OpenAiException) {
    return {
      status: exception.status,
      body: {
        error: {
          message: exception.message,
          type: 'invalid_request_error',
          param: exception.param,
          code: exception.code,
        },
      },
    };
  }
  if (exception instanceof ApiException) {
    const status = statusOf(exception.code);
    const details = Array.isArray(exception.details)
      ? (exception.details as { field?: string; message?: string }[])
      : [];
    const first = details[0];
    return {
      status,
      body: {
        error: {
          message: first?.message
            ? `${exception.message}: ${first.field}: ${first.message}`
            : exception.message,
          type: typeOf(exception.code),
          param: first?.field ?? null,
          code: exception.code,
        },
      },
    };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    return {
      status,
      body: {
        error: {
          message: status === 404 ? 'no such route' : exception.message,
          type: status < 500 ? 'invalid_request_error' : 'server_error',
          param: null,
          code: status === 404 ? ApiErrorCode.NotFound : ApiErrorCode.InvalidRequest,
        },
      },
    };
  }
  return {
    status: 500,
    body: {
      error: { message: 'internal error', type: 'server_error', param: null, code: ApiErrorCode.Internal },
    },
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
