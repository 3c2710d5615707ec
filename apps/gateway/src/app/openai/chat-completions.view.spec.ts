import { parseChatCompletionRequest } from './chat-completions.dto';
import { historyOf, toolResultsOf } from './chat-completions.usecase';
import { ChunkFrames, completionOf, errorFrame } from './chat-completions.view';
import { OpenAiException } from './openai.exception';

const head = { id: 'chatcmpl-r1', created: 1700000000, model: 'default' };
const call = { task_id: 't1', id: 'call_1', name: 'get_weather', arguments: { city: 'Oslo' } };
const messagesOf = (messages: unknown[]) =>
  parseChatCompletionRequest({ model: 'default', messages }).messages;
const usage = { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 };

describe('completionOf', () => {
  it('carries the answer, finish_reason stop', () => {
    expect(completionOf(head, { kind: 'answer', content: 'Hi' }, usage)).toEqual({
      ...head,
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Hi', refusal: null },
          finish_reason: 'stop',
          logprobs: null,
        },
      ],
      usage,
    });
  });

  it('carries the client function calls, finish_reason tool_calls', () => {
    const [choice] = completionOf(head, { kind: 'tool_calls', calls: [call] }, usage).choices;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message).toEqual({
      role: 'assistant',
      content: null,
      refusal: null,
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
      ],
    });
  });
});

describe('ChunkFrames and errorFrame', () => {
  it('frames chunks with the completion’s id, time and model', () => {
    const frames = new ChunkFrames(head);
    expect(JSON.parse(frames.chunk({ content: 'x' }, null).slice(6))).toEqual({
      ...head,
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta: { content: 'x' }, finish_reason: null }],
    });
    expect(frames.frame([], { usage }).endsWith('\n\n')).toBe(true);
    expect(JSON.parse(errorFrame('boom', 'run_failed').slice(6))).toEqual({
      error: { message: 'boom', type: 'server_error', param: null, code: 'run_failed' },
    });
  });
});

describe('toolResultsOf', () => {
  const asked = {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }],
  };

  it('takes the trailing tool messages as results of the calls the assistant made', () => {
    const results = toolResultsOf(
      messagesOf([
        { role: 'user', content: 'hi' },
        asked,
        { role: 'tool', tool_call_id: 'call_1', content: '42' },
      ]),
    );
    expect(results).toEqual([{ callId: 'call_1', output: '42', param: 'messages[2].tool_call_id' }]);
  });

  it('refuses a tool message answering a call that was not made, naming it', () => {
    const run = () =>
      toolResultsOf(
        messagesOf([
          { role: 'user', content: 'hi' },
          asked,
          { role: 'tool', tool_call_id: 'call_9', content: '42' },
        ]),
      );
    expect(run).toThrow(OpenAiException);
    expect(run).toThrow(/tool message 2 answers "call_9"/);
  });
});

describe('historyOf', () => {
  it('keeps system, user and assistant text, tool calls and results as the assistant’s text', () => {
    expect(
      historyOf(
        messagesOf([
          { role: 'developer', content: 'be brief' },
          { role: 'user', content: 'weather?' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: 'c', content: 'sunny' },
          { role: 'assistant', content: '' },
          { role: 'user', content: 'thanks' },
        ]),
      ),
    ).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'weather?' },
      { role: 'assistant', content: '[called f({})]' },
      { role: 'assistant', content: '[result of c: sunny]' },
      { role: 'user', content: 'thanks' },
    ]);
  });
});
