import { type Conversation, type NativeJson, matchesWhen, shapeForRequest } from './script.engine';

describe('matchesWhen api_key', () => {
  const conv = (apiKey?: string) => ({ messages: [{ role: 'user', text: 'hi' }], toolNames: [], apiKey });

  it('holds only for a request carrying exactly that key', () => {
    expect(matchesWhen({ api_key: 'sk-1' }, conv('sk-1'))).toBe(true);
    expect(matchesWhen({ api_key: 'sk-1' }, conv('sk-12'))).toBe(false);
    expect(matchesWhen({ api_key: 'sk-1' }, conv())).toBe(false);
    expect(matchesWhen({}, conv())).toBe(true);
  });
});

describe(shapeForRequest.name, () => {
  const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
  const json = { content: '{"answer": 42}', toolCalls: [], usage };
  const prose = { content: 'Hello there.', toolCalls: [], usage };
  const conv = (native?: NativeJson): Conversation => ({
    messages: [{ role: 'user', text: 'hi' }],
    toolNames: [],
    ...(native ? { native } : {}),
  });

  it.each([
    ['a response format, strict', json, { via: 'json_schema' } as const, true, '{"answer": 42}', []],
    ['no native ask, not strict', json, undefined, false, '{"answer": 42}', []],
    [
      'a forced tool',
      json,
      { via: 'tool', tool: 'answer' } as const,
      true,
      null,
      [{ name: 'answer', arguments: { answer: 42 } }],
    ],
    ['prose, strict', prose, undefined, true, 'Hello there.', []],
  ])('%s', (_what, rendered, native, strict, content, toolCalls) => {
    const shaped = shapeForRequest(rendered, conv(native), strict);
    expect(shaped.content).toBe(content);
    expect(shaped.toolCalls).toEqual(toolCalls);
  });

  it('wraps JSON in prose for a request that did not ask natively, in strict mode', () => {
    const shaped = shapeForRequest(json, conv(), true);
    expect(shaped.content).toContain('{"answer": 42}');
    expect(() => JSON.parse(shaped.content ?? '')).toThrow();
  });
});
