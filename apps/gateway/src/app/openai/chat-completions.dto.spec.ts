import { parseChatCompletionRequest, paramOf } from './chat-completions.dto';
import { OpenAiException } from './openai.exception';

const base = { model: 'default', messages: [{ role: 'user', content: 'hi' }] };

/** The `param` and `code` a refused body is answered with. */
function refused(body: unknown): { param: string | null; code: string } {
  try {
    parseChatCompletionRequest(body);
  } catch (err) {
    if (err instanceof OpenAiException) {
      expect(err.status).toBe(400);
      return { param: err.param, code: err.code };
    }
    throw err;
  }
  throw new Error('the body was accepted');
}

describe(parseChatCompletionRequest.name, () => {
  it('accepts what it can honour, nulls counting as absent', () => {
    const req = parseChatCompletionRequest({
      ...base,
      n: 1,
      logprobs: false,
      modalities: ['text'],
      tool_choice: 'auto',
      parallel_tool_calls: true,
      temperature: null,
      response_format: { type: 'json_object' },
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(req.response_format).toEqual({ type: 'json_object' });
    expect('temperature' in req).toBe(false);
  });

  it.each<[string, Record<string, unknown>, string, string]>([
    ['n', { n: 3 }, 'n', 'unsupported_value'],
    ['temperature', { temperature: 1 }, 'temperature', 'unsupported_parameter'],
    ['an unknown field', { foo: 1 }, 'foo', 'unsupported_parameter'],
    [
      'an unknown message field',
      { messages: [{ role: 'user', content: 'x', audio: {} }] },
      'messages[0].audio',
      'unsupported_parameter',
    ],
    [
      'stream_options without stream',
      { stream_options: { include_usage: true } },
      'stream_options',
      'invalid_value',
    ],
    [
      'a tool message without its id',
      { messages: [{ role: 'tool', content: 'x' }] },
      'messages[0].tool_call_id',
      'invalid_value',
    ],
    [
      'two tools of one name',
      {
        tools: [
          { type: 'function', function: { name: 'f' } },
          { type: 'function', function: { name: 'f' } },
        ],
      },
      'tools[1].function.name',
      'invalid_value',
    ],
    [
      'a bad function name',
      { tools: [{ type: 'function', function: { name: 'a b' } }] },
      'tools[0].function.name',
      'invalid_value',
    ],
    [
      'an empty last user message',
      { messages: [{ role: 'user', content: '  ' }] },
      'messages[0].content',
      'invalid_value',
    ],
  ])('refuses %s, naming the field', (_, extra, param, code) => {
    expect(refused({ ...base, ...extra })).toEqual({ param, code });
  });
});

describe(paramOf.name, () => {
  it.each<[PropertyKey[], string | null]>([
    [[], null],
    [['model'], 'model'],
    [['messages', 0, 'content', 1, 'type'], 'messages[0].content[1].type'],
  ])('%j → %s', (path, param) => {
    expect(paramOf(path)).toBe(param);
  });
});
