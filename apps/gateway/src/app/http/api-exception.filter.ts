import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { VersionGoneError } from '@switchyard/persistence';
import { ApiErrorCode, ApiException, statusOf } from './api.exception';

const RETRY_AFTER_SECONDS = 1;

/**
 * pg-pool gave up waiting for a free connection (its connectionTimeoutMillis): a burst larger than
 * the pool can serve in time — an overload to answer with 503 and Retry-After, not a bug.
 */
function isPoolExhausted(exception: unknown): boolean {
  const message = (exception as { message?: unknown } | null)?.message;
  return typeof message === 'string' && message.startsWith('timeout exceeded when trying to connect');
}

/** Every error leaves the gateway in the API's error format, never with a stack trace. */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Http');

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    const { status, body } = this.toBody(exception);
    if (status >= 500) {
      this.logger.error({ err: exception, msg: 'request failed' });
    }
    if (res.headersSent) {
      res.end();
      return;
    }
    if (status === 503) {
      // Overloaded, not broken: the client may send the same request again shortly.
      res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
    }
    res.status(status).json(body);
  }

  private toBody(exception: unknown): { status: number; body: unknown } {
    if (exception instanceof ApiException) {
      return {
        status: statusOf(exception.code),
        body: {
          error: {
            code: exception.code,
            message: exception.message,
            ...(exception.details ? { details: exception.details } : {}),
          },
        },
      };
    }
    // Body-parser errors (express) carry a `type` and a status.
    const e = exception as { type?: string; status?: number; message?: string };
    if (e?.type === 'entity.too.large') {
      return this.toBody(
        new ApiException(ApiErrorCode.PayloadTooLarge, 'the request body exceeds the 1 MiB limit'),
      );
    }
    if (e?.type === 'entity.parse.failed') {
      return this.toBody(new ApiException(ApiErrorCode.InvalidRequest, 'the request body is not valid JSON'));
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const code =
        status === 404
          ? ApiErrorCode.NotFound
          : status === 413
            ? ApiErrorCode.PayloadTooLarge
            : status === 401
              ? ApiErrorCode.Unauthorized
              : status < 500
                ? ApiErrorCode.InvalidRequest
                : ApiErrorCode.Internal;
      const message = status === 404 ? 'no such route' : exception.message;
      return { status, body: { error: { code, message } } };
    }
    if (exception instanceof VersionGoneError) {
      // A checkpoint of a compacted history (or past the log): not there, whoever asks.
      return this.toBody(new ApiException(ApiErrorCode.NotFound, exception.message));
    }
    if (isPoolExhausted(exception)) {
      return this.toBody(
        new ApiException(
          ApiErrorCode.Unavailable,
          'the database is busy (no connection was free in time); send the request again (with the same request_id, where the endpoint takes one, it is not carried out twice)',
        ),
      );
    }
    return { status: 500, body: { error: { code: ApiErrorCode.Internal, message: 'internal error' } } };
  }
}
