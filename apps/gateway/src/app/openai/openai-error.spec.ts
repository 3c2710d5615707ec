import { NotFoundException, UnauthorizedException } from '@nestjs/common';
import { OVERSIZED_JSON_BODY, bodyParserError } from '@switchyard/testing';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { OpenAiErrorCode, OpenAiException } from './openai.exception';
import { renderOpenAiError } from './openai-error';

describe(renderOpenAiError.name, () => {
  it("renders its own error with OpenAI's type and the field at fault", () => {
    const rendered = renderOpenAiError(OpenAiException.modelNotFound('nope'));
    expect(rendered).toMatchObject({
      status: 404,
      body: { error: { type: 'invalid_request_error', param: 'model', code: OpenAiErrorCode.ModelNotFound } },
      serverFault: false,
    });
    expect(rendered).not.toHaveProperty('retryAfter');
  });

  it("names an API error's first failing field as `param`", () => {
    const rendered = renderOpenAiError(
      new ApiException(ApiErrorCode.InvalidRequest, 'the request is invalid', [
        { field: 'messages', message: 'Required' },
      ]),
    );
    expect(rendered).toMatchObject({
      status: 400,
      body: {
        error: {
          message: 'the request is invalid: messages: Required',
          type: 'invalid_request_error',
          param: 'messages',
          code: 'invalid_request',
        },
      },
    });
  });

  it('answers an exhausted database pool as a 503 server_error with Retry-After', () => {
    expect(renderOpenAiError(new Error('timeout exceeded when trying to connect'))).toMatchObject({
      status: 503,
      retryAfter: 1,
      body: { error: { type: 'server_error', code: 'unavailable', param: null } },
      serverFault: true,
    });
  });

  it('answers a body over 1 MiB as 413 payload_too_large', async () => {
    expect(renderOpenAiError(await bodyParserError(OVERSIZED_JSON_BODY))).toMatchObject({
      status: 413,
      body: {
        error: {
          message: 'the request body exceeds the 1 MiB limit',
          type: 'invalid_request_error',
          code: 'payload_too_large',
        },
      },
    });
  });

  it("maps Nest's exceptions as the API does: 401 an authentication_error, 404 no such route", () => {
    expect(renderOpenAiError(new UnauthorizedException('no key'))).toMatchObject({
      status: 401,
      body: { error: { type: 'authentication_error', code: 'unauthorized' } },
    });
    expect(renderOpenAiError(new NotFoundException())).toMatchObject({
      status: 404,
      body: { error: { message: 'no such route', code: 'not_found' } },
    });
  });

  it('ends a stream already begun with the error as a data event', () => {
    const rendered = renderOpenAiError(new Error('boom'));
    expect(rendered.status).toBe(500);
    expect(rendered.body).toEqual({
      error: { message: 'internal error', type: 'server_error', param: null, code: 'internal' },
    });
    expect(rendered.streamFrame).toBe(`data: ${JSON.stringify(rendered.body)}\n\n`);
    expect(rendered.serverFault).toBe(true);
  });
});
