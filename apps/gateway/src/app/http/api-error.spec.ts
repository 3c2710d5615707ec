import {
  BadRequestException,
  ForbiddenException,
  Logger,
  NotFoundException,
  PayloadTooLargeException,
  ServiceUnavailableException,
  UnauthorizedException,
} from '@nestjs/common';
import type { Response } from 'express';
import { VersionGoneError } from '@switchyard/persistence';
import { OVERSIZED_JSON_BODY, bodyParserError } from '@switchyard/testing';
import { type RenderedError, sendError, toApiError } from './api-error';
import { ApiErrorCode, ApiException } from './api.exception';

const POOL_TIMEOUT = 'timeout exceeded when trying to connect';

describe(toApiError.name, () => {
  it('keeps our own error: its code, status, message and details', () => {
    const details = [{ field: 'input.prompt', message: 'Required' }];
    expect(
      toApiError(new ApiException(ApiErrorCode.InvalidRequest, 'the request is invalid', details)),
    ).toEqual({
      status: 400,
      code: 'invalid_request',
      message: 'the request is invalid',
      details,
    });
    expect(toApiError(new ApiException(ApiErrorCode.ThreadBusy, 'busy'))).toEqual({
      status: 409,
      code: 'thread_busy',
      message: 'busy',
    });
  });

  it('asks a client to come back after an overload (503) and only then', () => {
    expect(toApiError(new ApiException(ApiErrorCode.Unavailable, 'later'))).toMatchObject({
      status: 503,
      retryAfter: 1,
    });
    expect(toApiError(new ServiceUnavailableException())).toMatchObject({ status: 503, retryAfter: 1 });
    expect(toApiError(new ApiException(ApiErrorCode.RateLimited, 'slow down'))).not.toHaveProperty(
      'retryAfter',
    );
  });

  it("maps express's body-parser errors: a body over 1 MiB, a body that is not JSON", async () => {
    expect(toApiError(await bodyParserError(OVERSIZED_JSON_BODY))).toEqual({
      status: 413,
      code: 'payload_too_large',
      message: 'the request body exceeds the 1 MiB limit',
    });
    expect(toApiError(await bodyParserError('{"prompt": '))).toEqual({
      status: 400,
      code: 'invalid_request',
      message: 'the request body is not valid JSON',
    });
  });

  it("maps Nest's HttpExceptions by status, an unknown route as 'no such route'", () => {
    expect(toApiError(new NotFoundException('Cannot GET /v1/nope'))).toEqual({
      status: 404,
      code: 'not_found',
      message: 'no such route',
    });
    expect(toApiError(new UnauthorizedException('who are you'))).toMatchObject({
      status: 401,
      code: 'unauthorized',
    });
    expect(toApiError(new PayloadTooLargeException())).toMatchObject({
      status: 413,
      code: 'payload_too_large',
    });
    expect(toApiError(new ForbiddenException('no'))).toEqual({
      status: 403,
      code: 'invalid_request',
      message: 'no',
    });
    expect(toApiError(new BadRequestException('bad'))).toMatchObject({
      status: 400,
      code: 'invalid_request',
    });
  });

  it('answers a compacted checkpoint as not found', () => {
    const gone = new VersionGoneError('t1', 3, 9);
    expect(toApiError(gone)).toEqual({ status: 404, code: 'not_found', message: gone.message });
  });

  it('answers an exhausted database pool as 503 unavailable, to be sent again', () => {
    const error = toApiError(new Error(POOL_TIMEOUT));
    expect(error).toMatchObject({ status: 503, code: 'unavailable', retryAfter: 1 });
    expect(error.message).toMatch(/database is busy/);
  });

  it('says nothing of an unknown error but that it is internal', () => {
    expect(toApiError(new Error('secret at line 3'))).toEqual({
      status: 500,
      code: 'internal',
      message: 'internal error',
    });
    expect(toApiError(null)).toEqual({ status: 500, code: 'internal', message: 'internal error' });
    expect(toApiError('a string')).toEqual({ status: 500, code: 'internal', message: 'internal error' });
  });
});

class RecordingLogger extends Logger {
  readonly errors: unknown[] = [];
  override error(message: unknown): void {
    this.errors.push(message);
  }
}

/** A response that records what is written to it. */
function recordingResponse(headersSent = false) {
  const sent: {
    status?: number;
    body?: unknown;
    headers: Record<string, string>;
    written: string[];
    ended: boolean;
  } = { headers: {}, written: [], ended: false };
  const res = {
    headersSent,
    setHeader: (k: string, v: string) => (sent.headers[k] = v),
    status(code: number) {
      sent.status = code;
      return this;
    },
    json: (body: unknown) => (sent.body = body),
    write: (chunk: string) => sent.written.push(chunk),
    end: () => (sent.ended = true),
  };
  return { res: res as unknown as Response, sent };
}

describe(sendError.name, () => {
  const error: RenderedError = {
    status: 503,
    body: { e: 1 },
    streamFrame: 'data: x\n\n',
    retryAfter: 1,
    serverFault: true,
  };

  it('writes the status, Retry-After and body, and logs a server fault', () => {
    const { res, sent } = recordingResponse();
    const logger = new RecordingLogger();
    sendError(res, error, new Error('boom'), logger);
    expect(sent).toMatchObject({ status: 503, body: { e: 1 }, headers: { 'Retry-After': '1' }, written: [] });
    expect(logger.errors).toHaveLength(1);
  });

  it('logs nothing for a fault of the request, and sets no Retry-After without one', () => {
    const { res, sent } = recordingResponse();
    const logger = new RecordingLogger();
    sendError(res, { status: 400, body: {}, serverFault: false }, new Error('bad'), logger);
    expect(sent.status).toBe(400);
    expect(sent.headers).toEqual({});
    expect(logger.errors).toEqual([]);
  });

  it('ends a stream already begun with its frame instead of a status line', () => {
    const { res, sent } = recordingResponse(true);
    sendError(res, error, new Error('boom'), new RecordingLogger());
    expect(sent).toMatchObject({ written: ['data: x\n\n'], ended: true, headers: {} });
    expect(sent.status).toBeUndefined();
  });

  it('just ends a stream already begun when the surface has no frame for it', () => {
    const { res, sent } = recordingResponse(true);
    sendError(res, { status: 500, body: {}, serverFault: true }, null, new RecordingLogger());
    expect(sent).toMatchObject({ written: [], ended: true });
  });
});
