import { NotFoundException, UnauthorizedException } from '@nestjs/common';
import { OVERSIZED_JSON_BODY, bodyParserError } from '@switchyard/testing';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { RagflowCode, RagflowException } from './ragflow.dto';
import { renderRagflowError } from './ragflow-error';

describe(renderRagflowError.name, () => {
  it("renders its own error as RAGFlow's envelope with HTTP 200", () => {
    expect(
      renderRagflowError(new RagflowException(RagflowCode.DataError, "You don't own the agent")),
    ).toEqual({
      status: 200,
      body: { code: 102, message: "You don't own the agent", data: false },
      streamFrame: `data:${JSON.stringify({ code: 102, message: "You don't own the agent", data: false })}\n\ndata:[DONE]\n\n`,
      serverFault: false,
    });
  });

  it("gives the API's errors RAGFlow's codes", () => {
    const codeOf = (e: unknown) => (renderRagflowError(e).body as { code: number }).code;
    expect(codeOf(new ApiException(ApiErrorCode.InvalidRequest, 'bad'))).toBe(RagflowCode.ArgumentError);
    expect(codeOf(new ApiException(ApiErrorCode.NotFound, 'gone'))).toBe(RagflowCode.DataError);
    expect(codeOf(new ApiException(ApiErrorCode.ThreadBusy, 'busy'))).toBe(RagflowCode.OperatingError);
    expect(codeOf(new UnauthorizedException())).toBe(RagflowCode.AuthenticationError);
    expect(renderRagflowError(new NotFoundException()).body).toEqual({
      code: RagflowCode.DataError,
      message: 'no such route',
      data: false,
    });
  });

  it('answers a body over 1 MiB as an argument error', async () => {
    expect(renderRagflowError(await bodyParserError(OVERSIZED_JSON_BODY)).body).toEqual({
      code: RagflowCode.ArgumentError,
      message: 'the request body exceeds the 1 MiB limit',
      data: false,
    });
  });

  it('answers an exhausted pool or an unknown error as a server error (200, no Retry-After), logged', () => {
    const busy = renderRagflowError(new Error('timeout exceeded when trying to connect'));
    expect(busy).toMatchObject({ status: 200, body: { code: RagflowCode.ServerError }, serverFault: true });
    expect(busy).not.toHaveProperty('retryAfter');
    expect(renderRagflowError(new Error('secret'))).toMatchObject({
      status: 200,
      body: { code: RagflowCode.ServerError, message: 'internal error', data: false },
      serverFault: true,
    });
  });
});
