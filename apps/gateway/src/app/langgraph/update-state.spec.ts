import type { RuntimeState } from '@switchyard/contracts';
import { emptyState } from '@switchyard/state';
import { editsOfValues } from './update-state';

const state: RuntimeState = {
  ...emptyState('t', 'r'),
  chat_history: [
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: 'hello' },
  ],
};

describe(editsOfValues.name, () => {
  it("replaces a message named by its id, appends one that names none of the thread's", () => {
    expect(
      editsOfValues(
        {
          messages: [
            { id: 't:1', type: 'ai', content: 'hey' },
            { id: 'other:0', type: 'human', content: 'more' },
          ],
        },
        state,
      ),
    ).toEqual([
      { op: 'replace', path: '/chat_history/1', value: { role: 'assistant', content: 'hey' } },
      { op: 'add', path: '/chat_history/-', value: { role: 'user', content: 'more' } },
    ]);
  });

  it("refuses to replace a graph agent's answer (its id is no chat_history index)", () => {
    expect(() =>
      editsOfValues({ messages: [{ id: 't:turn-0:answer', type: 'ai', content: 'x' }] }, state),
    ).toThrow("values.messages[0]: a graph agent's answer is what its canvas said");
  });
});
