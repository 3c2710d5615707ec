import {
  HISTORY_GLOBAL,
  canvasHistory,
  historyAtTurnStart,
  historyWindow,
  promptsWithHistory,
} from './canvas-history';

describe('canvas history', () => {
  it("records each turn's query and the previous turn's answer, as entries and as sys.history lines", () => {
    const first = historyAtTurnStart({ 'sys.history': [] }, 'hi');
    expect(first[HISTORY_GLOBAL]).toEqual([{ role: 'user', content: 'hi' }]);
    expect(first['sys.history']).toEqual(['user: hi']);
    const second = historyAtTurnStart(first, 'and now?', { content: 'Hello!', n: 1 });
    expect(second[HISTORY_GLOBAL]).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'Hello!' },
      { role: 'user', content: 'and now?' },
    ]);
    // RAGFlow writes the outputs dict as Python shows it.
    expect(second['sys.history']).toEqual([
      'user: hi',
      "assistant: {'content': 'Hello!', 'n': 1}",
      'user: and now?',
    ]);
  });

  it('reads a state written before the entries existed from its sys.history lines', () => {
    expect(canvasHistory({ 'sys.history': ['user: a', 'assistant: b: c', 'odd'] })).toEqual([
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'b: c' },
      { role: 'user', content: 'odd' },
    ]);
    expect(canvasHistory({})).toEqual([]);
  });

  it('windows the last 2 × window entries after an empty user entry per resume; none for 0', () => {
    const h = [
      { role: 'user', content: '1' },
      { role: 'assistant', content: '2' },
      { role: 'user', content: '3' },
    ];
    expect(historyWindow(h, 1, 1)).toEqual([
      { role: 'user', content: '3' },
      { role: 'user', content: '' },
    ]);
    expect(historyWindow(h, 0, 13)).toEqual(h);
    expect(historyWindow(h, 2, 0)).toEqual([]);
  });

  it("drops this turn's query and lets the first prompt take its place when the roles agree", () => {
    const user = (content: string) => ({ role: 'user', content });
    const assistant = (content: string) => ({ role: 'assistant', content });
    // A first turn: only the prompts.
    expect(promptsWithHistory([user('q')], [user('P')])).toEqual([user('P')]);
    // A later turn: the earlier exchange, then the prompt.
    expect(promptsWithHistory([user('q1'), assistant('a1'), user('q2')], [user('P')])).toEqual([
      user('q1'),
      assistant('a1'),
      user('P'),
    ]);
    // A resumed run (an empty user entry last): the prompt replaces the query before it.
    expect(promptsWithHistory([user('q1'), user('')], [user('P'), assistant('A')])).toEqual([
      user('P'),
      assistant('A'),
    ]);
  });
});
