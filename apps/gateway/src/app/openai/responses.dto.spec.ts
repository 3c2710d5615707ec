import { OpenAiException } from './openai.exception';
import {
  clientOptionsOf,
  parseResponseRequest,
  responseIdOf,
  turnOf,
  uuidOfResponseId,
} from './responses.dto';

const base = { model: 'default', input: 'hi' };

/** The `param` and `code` a refused body is answered with. */
function refused(body: unknown): { param: string | null; code: string; message: string } {
  try {
    parseResponseRequest(body);
  } catch (err) {
    if (err instanceof OpenAiException) {
      expect(err.status).toBe(400);
      return { param: err.param, code: err.code, message: err.message };
    }
    throw err;
  }
  throw new Error('the body was accepted');
}

describe(parseResponseRequest.name, () => {
  it('accepts what it can honour, nulls counting as absent', () => {
    const req = parseResponseRequest({
      ...base,
      instructions: 'be brief',
      temperature: null,
      store: true,
      tool_choice: 'auto',
      parallel_tool_calls: true,
      truncation: 'disabled',
      metadata: { a: 'b' },
      tools: [{ type: 'function', name: 'f', parameters: { type: 'object' }, strict: true }],
      text: { format: { type: 'json_schema', name: 'out', schema: { type: 'object' } } },
    });
    expect(req.instructions).toBe('be brief');
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['temperature', { temperature: 1 }, 'temperature'],
    ['max_output_tokens', { max_output_tokens: 10 }, 'max_output_tokens'],
    ['reasoning', { reasoning: { effort: 'low' } }, 'reasoning'],
    ['conversation', { conversation: 'c' }, 'conversation'],
    ['store false', { store: false }, 'store'],
    ['parallel_tool_calls false', { parallel_tool_calls: false }, 'parallel_tool_calls'],
    ['a named tool choice', { tool_choice: { type: 'function', name: 'f' } }, 'tool_choice'],
    ['a built-in tool', { tools: [{ type: 'file_search' }] }, 'tools[0].type'],
    [
      'two tools of one name',
      {
        tools: [
          { type: 'function', name: 'f' },
          { type: 'function', name: 'f' },
        ],
      },
      'tools[1].name',
    ],
    [
      'parameters that do not compile',
      { tools: [{ type: 'function', name: 'f', parameters: { type: 'nope' } }] },
      'tools[0].parameters',
    ],
    [
      'a format schema that does not compile',
      { text: { format: { type: 'json_schema', name: 'x', schema: { type: 7 } } } },
      'text.format.schema',
    ],
    [
      'an image part',
      { input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'x' }] }] },
      'input',
    ],
    ['include', { include: ['reasoning.encrypted_content'] }, 'include'],
    ['truncation auto', { truncation: 'auto' }, 'truncation'],
    [
      'seventeen metadata keys',
      { metadata: Object.fromEntries([...Array(17).keys()].map((k) => [`k${k}`, 'v'])) },
      'metadata',
    ],
    [
      'a function call last',
      { input: [{ type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' }] },
      'input[0]',
    ],
    ['an empty prompt', { input: [{ role: 'user', content: '  ' }] }, 'input[0].content'],
    [
      'two results for one call',
      {
        input: [
          { type: 'function_call_output', call_id: 'c', output: 'a' },
          { type: 'function_call_output', call_id: 'c', output: 'b' },
        ],
      },
      'input[1].call_id',
    ],
  ])('refuses %s, naming it', (_what, extra, param) => {
    expect(refused({ ...base, ...extra }).param).toBe(param);
  });

  it('refuses a body that is not an object', () => {
    expect(refused([]).message).toContain('JSON object');
  });
});

describe(turnOf.name, () => {
  it('a user message last is a turn; the items before it are its history', () => {
    const turn = turnOf(
      parseResponseRequest({
        model: 'm',
        input: [
          { role: 'developer', content: 'rules' },
          { role: 'user', content: [{ type: 'input_text', text: 'q1' }] },
          {
            type: 'message',
            role: 'assistant',
            content: [{ type: 'output_text', text: 'a1', annotations: [] }],
          },
          { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{"x":1}' },
          { type: 'function_call_output', call_id: 'c1', output: 'r1' },
          { role: 'user', content: 'q2' },
        ],
      }),
    );
    expect(turn).toEqual({
      kind: 'message',
      prompt: 'q2',
      param: 'input[5].content',
      history: [
        { role: 'system', content: 'rules' },
        { role: 'user', content: 'q1' },
        { role: 'assistant', content: 'a1' },
        { role: 'assistant', content: '[called f({"x":1})]' },
        { role: 'assistant', content: '[result of c1: r1]' },
      ],
    });
  });

  it('function_call_output items last are the results the paused run waits for', () => {
    const turn = turnOf(
      parseResponseRequest({
        model: 'm',
        input: [
          { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
          { type: 'function_call_output', call_id: 'c1', output: 'one' },
          { type: 'function_call_output', call_id: 'c2', output: [{ type: 'input_text', text: 'two' }] },
        ],
      }),
    );
    expect(turn).toEqual({
      kind: 'results',
      results: [
        { callId: 'c1', output: 'one', param: 'input[1].call_id' },
        { callId: 'c2', output: 'two', param: 'input[2].call_id' },
      ],
    });
  });
});

describe(clientOptionsOf.name, () => {
  it("offers the functions in chat's shape and maps text.format to a response format", () => {
    const req = parseResponseRequest({
      ...base,
      tools: [{ type: 'function', name: 'f', description: 'd', parameters: { type: 'object' } }],
      text: { format: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true } },
    });
    expect(clientOptionsOf(req)).toEqual({
      client_tools: [
        { type: 'function', function: { name: 'f', description: 'd', parameters: { type: 'object' } } },
      ],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'out', schema: { type: 'object' }, strict: true },
      },
    });
    expect(clientOptionsOf({ ...req, tool_choice: 'none', text: { format: { type: 'text' } } })).toEqual({});
  });
});

describe('response ids', () => {
  it('round-trip a uuid; anything else is not one of ours', () => {
    const uuid = '0b8e2f4c-1d2e-4f5a-8b9c-0d1e2f3a4b5c';
    expect(responseIdOf(uuid)).toBe('resp_0b8e2f4c1d2e4f5a8b9c0d1e2f3a4b5c');
    expect(uuidOfResponseId(responseIdOf(uuid))).toBe(uuid);
    expect(uuidOfResponseId('resp_xyz')).toBeNull();
    expect(uuidOfResponseId(uuid)).toBeNull();
  });
});
