/** The `error.code` values the OpenAI-compatible routes answer with besides the API's own codes. */
export enum OpenAiErrorCode {
  ModelNotFound = 'model_not_found',
  UnsupportedParameter = 'unsupported_parameter',
  UnsupportedValue = 'unsupported_value',
  InvalidValue = 'invalid_value',
  ToolCallNotFound = 'tool_call_not_found',
  ResponseNotFound = 'response_not_found',
  PreviousResponseNotFound = 'previous_response_not_found',
}

/**
 * An error of the OpenAI-compatible routes, answered in OpenAI's shape
 * `{error: {message, type, param, code}}`; `param` names the request field at fault.
 */
export class OpenAiException extends Error {
  constructor(
    readonly status: 400 | 404 | 409,
    readonly code: OpenAiErrorCode,
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
    this.name = 'OpenAiException';
  }

  /** 400: a field or value the gateway cannot honour (never silently ignored). */
  static unsupported(
    param: string,
    message: string,
    code = OpenAiErrorCode.UnsupportedParameter,
  ): OpenAiException {
    return new OpenAiException(400, code, message, param);
  }

  static invalid(param: string | null, message: string): OpenAiException {
    return new OpenAiException(400, OpenAiErrorCode.InvalidValue, message, param);
  }

  static modelNotFound(model: string): OpenAiException {
    return new OpenAiException(
      404,
      OpenAiErrorCode.ModelNotFound,
      `The model "${model}" does not exist: use an agent's id or name (optionally @version), or "default"`,
      'model',
    );
  }
}
