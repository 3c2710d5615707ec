import { type ArgumentsHost, NotFoundException } from '@nestjs/common';
import { bodyParserError } from '@switchyard/testing';
import { ApiExceptionFilter, renderApiError, renderErrorFor } from './api-exception.filter';
import { ApiErrorCode } from './api.exception';

function respond(exception: unknown) {
  const sent: { status?: number; body?: unknown; headers: Record<string, string> } = { headers: {} };
  const res = {
    headersSent: false,
    setHeader: (k: string, v: string) => (sent.headers[k] = v),
    status(code: number) {
      sent.status = code;
      return this;
    },
    json: (body: unknown) => (sent.body = body),
    end: () => undefined,
  };
  const host = {
    switchToHttp: () => ({ getResponse: () => res, getRequest: () => ({ path: '/v1/runs' }) }),
  } as unknown as ArgumentsHost;
  new ApiExceptionFilter().catch(exception, host);
  return sent;
}

describe(ApiExceptionFilter.name, () => {
  it('answers a database pool that had no connection free in time with 503 and Retry-After, not 500', () => {
    const sent = respond(new Error('timeout exceeded when trying to connect'));
    expect(sent.status).toBe(503);
    expect(sent.headers['Retry-After']).toBe('1');
    expect(sent.body).toMatchObject({ error: { code: 'unavailable' } });
  });

  it('keeps anything else unknown a 500 without details', () => {
    const sent = respond(new Error('something broke at line 3'));
    expect(sent.status).toBe(500);
    expect(sent.headers['Retry-After']).toBeUndefined();
    expect(sent.body).toEqual({ error: { code: 'internal', message: 'internal error' } });
  });
});

describe(renderApiError.name, () => {
  it('renders an API error in our shape, its details kept', () => {
    const details = [{ field: 'input.prompt', message: 'Required' }];
    expect(
      renderApiError({
        status: 400,
        code: ApiErrorCode.InvalidRequest,
        message: 'the request is invalid',
        details,
      }),
    ).toEqual({
      status: 400,
      body: { error: { code: 'invalid_request', message: 'the request is invalid', details } },
      serverFault: false,
    });
  });

  it('carries Retry-After and marks a 5xx as a fault of the gateway', () => {
    expect(
      renderApiError({ status: 503, code: ApiErrorCode.Unavailable, message: 'busy', retryAfter: 1 }),
    ).toMatchObject({ status: 503, retryAfter: 1, serverFault: true });
  });
});

describe(renderErrorFor.name, () => {
  it('answers a body-parser error in the shape of the route family asked for', async () => {
    const tooLarge = await bodyParserError('"' + 'x'.repeat(1024 * 1024 + 10) + '"');
    expect(renderErrorFor('/v1/runs', tooLarge)).toMatchObject({
      status: 413,
      body: { error: { code: 'payload_too_large' } },
    });
    // OpenAI's shape: its clients read type and param.
    expect(renderErrorFor('/v1/chat/completions', tooLarge)).toMatchObject({
      status: 413,
      body: { error: { type: 'invalid_request_error', param: null, code: 'payload_too_large' } },
    });
    expect(renderErrorFor('/v1/responses', tooLarge).body).toHaveProperty('error.type');
    // RAGFlow's: HTTP 200 and its own code (ArgumentError), which its SDK reads.
    expect(renderErrorFor('/api/v1/agents/a/completions', tooLarge)).toMatchObject({
      status: 200,
      body: { code: 101, data: false },
    });
    // A path that only begins like a family is ours.
    expect(renderErrorFor('/v1/chatter', tooLarge).body).not.toHaveProperty('error.type');
  });

  it('knows a route family whatever the case of its path, as Express routes it', () => {
    const error = new NotFoundException();
    expect(renderErrorFor('/V1/Chat/completions', error).body).toHaveProperty('error.type');
    expect(renderErrorFor('/API/v1/agents', error)).toMatchObject({ status: 200, body: { data: false } });
    // Ours, not OpenAI's: /v1/admin/models only ends like a family.
    expect(renderErrorFor('/v1/admin/models', error).body).not.toHaveProperty('error.type');
  });
});
