import type { Action, RuntimeState } from '@switchyard/contracts';
import { emptyState } from '@switchyard/state';
import { messagesOf } from './langgraph.views';

const act = (node: string, result: unknown): Action =>
  ({ id: 1, node, result, next: [], preparation: '', summary: '' }) as unknown as Action;

describe(messagesOf.name, () => {
  it("lists the default agent's chat history with ids by index", () => {
    const state: RuntimeState = {
      ...emptyState('t', 'r'),
      prompts: ['hi'],
      chat_history: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
      ],
    };
    expect(messagesOf(state).map((m) => [m.id, m.type, m.content])).toEqual([
      ['t:0', 'human', 'hi'],
      ['t:1', 'ai', 'hello'],
    ]);
  });

  it("puts each graph turn's answer after its prompt (brought history left alone)", () => {
    const state: RuntimeState = {
      ...emptyState('t', 'r'),
      graph: { globals: {} } as RuntimeState['graph'],
      prompts: ['first', 'second', 'third'],
      chat_history: [
        { role: 'user', content: 'earlier' },
        { role: 'assistant', content: 'brought along' },
        { role: 'user', content: 'first' },
        { role: 'user', content: 'second' },
        { role: 'user', content: 'third' },
      ],
      action_history: [
        [act('start', {}), act('graph.m', { answer: 'one' })],
        [act('start', {}), act('graph.a', { answer: 'two, part' }), act('graph.b', { answer: 'two' })],
        [act('start', {}), act('graph.w', { paused: true })],
      ],
    };
    expect(messagesOf(state).map((m) => [m.id, m.type, m.content])).toEqual([
      ['t:0', 'human', 'earlier'],
      ['t:1', 'ai', 'brought along'],
      ['t:2', 'human', 'first'],
      ['t:turn-0:answer', 'ai', 'one'],
      ['t:3', 'human', 'second'],
      ['t:turn-1:answer', 'ai', 'two'],
      ['t:4', 'human', 'third'],
    ]);
  });

  it("places answers by the start action's chat_index, whatever the prompt's text now is", () => {
    const state: RuntimeState = {
      ...emptyState('t', 'r'),
      graph: { globals: {} } as RuntimeState['graph'],
      prompts: ['same', 'same'],
      chat_history: [
        { role: 'user', content: 'same' },
        { role: 'user', content: 'edited since' },
        { role: 'user', content: 'same' },
      ],
      action_history: [
        [act('start', { chat_index: 1 }), act('graph.m', { answer: 'one' })],
        [act('start', { chat_index: 2 }), act('graph.m', { answer: 'two' })],
      ],
    };
    expect(messagesOf(state).map((m) => [m.id, m.content])).toEqual([
      ['t:0', 'same'],
      ['t:1', 'edited since'],
      ['t:turn-0:answer', 'one'],
      ['t:2', 'same'],
      ['t:turn-1:answer', 'two'],
    ]);
  });
});
