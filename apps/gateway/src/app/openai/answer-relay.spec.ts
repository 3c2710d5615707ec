import { AnswerRelay } from './answer-relay';

const tok = (text: string, attempt = 1, task_id = 't1') => ({ task_id, attempt, text });

describe(AnswerRelay.name, () => {
  it('forwards a single attempt as it comes', () => {
    const r = new AnswerRelay();
    expect([r.accept(tok('The ')), r.accept(tok('answer')), r.accept(tok('.'))]).toEqual([
      'The ',
      'answer',
      '.',
    ]);
  });

  it('holds a retry that repeats what was sent, then forwards only what is new', () => {
    const r = new AnswerRelay();
    r.accept(tok('The ans'));
    const out = ['The ', 'answ', 'er is 14', '.'].map((t) => r.accept(tok(t, 2)));
    // The client's text: "The ans" + "w" + "er is 14" + "." — the retry's, once.
    expect(out).toEqual(['', 'w', 'er is 14', '.']);
    expect(r.accept(tok('late', 1))).toBe('');
  });

  it('takes a task started again for a retry, whatever its attempt number', () => {
    const r = new AnswerRelay();
    r.accept(tok('The ans'));
    r.started('t1');
    expect(['The ', 'answer'].map((t) => r.accept(tok(t, 1)))).toEqual(['', 'wer']);
  });

  it('says when a retry departs from what the client already has', () => {
    const r = new AnswerRelay();
    r.accept(tok('The answer is 14'));
    expect(r.accept(tok('The', 2))).toBe('');
    expect(r.accept(tok(' result', 2))).toEqual({ diverged: true });
  });

  it('keeps tasks apart (a graph agent streams several answer nodes)', () => {
    const r = new AnswerRelay();
    expect(r.accept(tok('a', 1, 'x'))).toBe('a');
    expect(r.accept(tok('b', 2, 'y'))).toBe('b');
  });
});
