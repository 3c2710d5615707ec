import { type ArgumentsHost, Catch, type ExceptionFilter, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { type ApiError, type RenderedError, sendError, toApiError } from './api-error';

/** An API error in our own shape: `{error: {code, message, details?}}`. */
export function renderApiError(error: ApiError): RenderedError {
  return {
    status: error.status,
    body: {
      error: {
        code: error.code,
        message: error.message,
        ...(error.details ? { details: error.details } : {}),
      },
    },
    ...(error.retryAfter !== undefined ? { retryAfter: error.retryAfter } : {}),
    serverFault: error.status >= 500,
  };
}

/** Every error leaves the gateway in the API's error format, never with a stack trace. */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Http');

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    sendError(res, renderApiError(toApiError(exception)), exception, this.logger);
  }
}
