import { HttpException, type Logger } from '@nestjs/common';
import type { Response } from 'express';
import { VersionGoneError } from '@switchyard/persistence';
import { ApiErrorCode, ApiException, statusOf } from './api.exception';

/** What an overloaded gateway asks a client to wait before sending the same request again. */
const RETRY_AFTER_SECONDS = 1;

/** Any error the gateway answers, as the API sees it: each surface renders it in its own shape. */
export interface ApiError {
  status: number;
  code: ApiErrorCode;
  message: string;
  details?: unknown;
  /** Seconds to wait before the same request may succeed (an overload, 503). */
  retryAfter?: number;
}

/**
 * pg-pool gave up waiting for a free connection (its connectionTimeoutMillis): a burst larger than
 * the pool can serve in time — an overload to answer with 503 and Retry-After, not a bug.
 */
function isPoolExhausted(exception: unknown): boolean {
  const message = (exception as { message?: unknown } | null)?.message;
  return typeof message === 'string' && message.startsWith('timeout exceeded when trying to connect');
}

function fromCode(code: ApiErrorCode, message: string, details?: unknown): ApiError {
  const status = statusOf(code);
  return {
    status,
    code,
    message,
    ...(details ? { details } : {}),
    ...(status === 503 ? { retryAfter: RETRY_AFTER_SECONDS } : {}),
  };
}

function codeOfStatus(status: number): ApiErrorCode {
  if (status === 404) {
    return ApiErrorCode.NotFound;
  }
  if (status === 413) {
    return ApiErrorCode.PayloadTooLarge;
  }
  if (status === 401) {
    return ApiErrorCode.Unauthorized;
  }
  return status < 500 ? ApiErrorCode.InvalidRequest : ApiErrorCode.Internal;
}

/**
 * The one mapping of what a request can throw to an API error: our own ApiException, express's
 * body-parser errors, Nest's HttpException (an unknown route), a compacted checkpoint, an
 * exhausted database pool — and anything else as a 500 that says nothing of its cause.
 */
export function toApiError(exception: unknown): ApiError {
  if (exception instanceof ApiException) {
    return fromCode(exception.code, exception.message, exception.details);
  }
  // Body-parser errors (express) carry a `type` and a status.
  const type = (exception as { type?: unknown } | null)?.type;
  if (type === 'entity.too.large') {
    return fromCode(ApiErrorCode.PayloadTooLarge, 'the request body exceeds the 1 MiB limit');
  }
  if (type === 'entity.parse.failed') {
    return fromCode(ApiErrorCode.InvalidRequest, 'the request body is not valid JSON');
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    return {
      status,
      code: codeOfStatus(status),
      message: status === 404 ? 'no such route' : exception.message,
      ...(status === 503 ? { retryAfter: RETRY_AFTER_SECONDS } : {}),
    };
  }
  if (exception instanceof VersionGoneError) {
    // A checkpoint of a compacted history (or past the log): not there, whoever asks.
    return fromCode(ApiErrorCode.NotFound, exception.message);
  }
  if (isPoolExhausted(exception)) {
    return fromCode(
      ApiErrorCode.Unavailable,
      'the database is busy (no connection was free in time); send the request again (with the same request_id, where the endpoint takes one, it is not carried out twice)',
    );
  }
  return { status: 500, code: ApiErrorCode.Internal, message: 'internal error' };
}

/** An error as one surface writes it. */
export interface RenderedError {
  /** The HTTP status (RAGFlow's surface answers errors with 200). */
  status: number;
  body: unknown;
  /** What ends a stream already begun, instead of a second status line (none: just end it). */
  streamFrame?: string;
  retryAfter?: number;
  /** A failure of the gateway rather than of the request: logged. */
  serverFault: boolean;
}

/** Writes a rendered error: the status, `Retry-After` and body, or the stream's last frame. */
export function sendError(res: Response, error: RenderedError, exception: unknown, logger: Logger): void {
  if (error.serverFault) {
    logger.error({ err: exception, msg: 'request failed' });
  }
  if (res.headersSent) {
    if (error.streamFrame !== undefined) {
      res.write(error.streamFrame);
    }
    res.end();
    return;
  }
  if (error.retryAfter !== undefined) {
    // Overloaded, not broken: the client may send the same request again shortly.
    res.setHeader('Retry-After', String(error.retryAfter));
  }
  res.status(error.status).json(error.body);
}
