import { type ArgumentsHost, Catch, type ExceptionFilter, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { renderOpenAiError } from '../openai/openai-error';
import { renderRagflowError } from '../ragflow/ragflow-error';
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

/** The route families that answer in another API's error shape, by path prefix. */
const FOREIGN_SHAPES: readonly { prefix: string; render: (exception: unknown) => RenderedError }[] = [
  { prefix: '/v1/chat', render: renderOpenAiError },
  { prefix: '/v1/responses', render: renderOpenAiError },
  { prefix: '/v1/models', render: renderOpenAiError },
  { prefix: '/api/v1', render: renderRagflowError },
];

/**
 * The renderer for an error of this request path: the OpenAI-compatible and RAGFlow routes answer
 * in their APIs' shapes, ours in our own. One filter for every route, so an error raised before a
 * route is matched (the body parser's 413 and 400) answers in the shape of the route asked for too.
 */
export function renderErrorFor(path: string, exception: unknown): RenderedError {
  // Express matches routes whatever the case (`/V1/Chat/completions` reaches the chat route).
  const lower = path.toLowerCase();
  const foreign = FOREIGN_SHAPES.find((f) => lower === f.prefix || lower.startsWith(`${f.prefix}/`));
  return foreign ? foreign.render(exception) : renderApiError(toApiError(exception));
}

/** Every error leaves the gateway in its route's error format, never with a stack trace. */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Http');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const res = http.getResponse<Response>();
    const path = http.getRequest<Request | undefined>()?.path ?? '';
    sendError(res, renderErrorFor(path, exception), exception, this.logger);
  }
}
