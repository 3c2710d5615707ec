import { TokenText } from './token-text';

const token = (text: string, attempt?: number, task_id = 't1') => ({
  event_type: 'token' as const,
  payload: { node: 'output', task_id, text, ...(attempt ? { attempt } : {}) },
});

describe(TokenText.name, () => {
  it('joins a task’s tokens; a retried attempt starts its text over; stragglers are dropped', () => {
    const t = new TokenText();
    t.add(token('The ans', 1));
    t.add({ event_type: 'node_started', payload: { node: 'output', task_id: 't1', attempt: 2 } });
    t.add(token('The ', 2));
    t.add(token('ans', 1));
    expect(t.add(token('answer', 2))).toBe('The answer');
  });

  it('takes a task started again after it streamed for a new attempt, whatever its number', () => {
    const t = new TokenText();
    t.add(token('The ans', 1));
    t.add({ event_type: 'node_started', payload: { node: 'output', task_id: 't1', attempt: 1 } });
    t.add(token('The ', 1));
    expect(t.add(token('answer', 1))).toBe('The answer');
  });

  it('keeps tasks in the order they first streamed; tokens without attempt count as the first', () => {
    const t = new TokenText();
    t.add(token('a'));
    t.add(token('b', 1, 't2'));
    t.add(token('c'));
    expect(t.text).toBe('acb');
  });
});
