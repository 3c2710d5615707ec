import type { RuntimeState } from '@switchyard/contracts';
import { hashEmbedding, cosine } from '@switchyard/knowledge';
import { VECTOR_MIN_SCORE, describeItems, memoryItems, relatedTurns, userIdOf } from './memory.logic';

describe('userIdOf', () => {
  it('reads metadata.user_id exactly as the gateway accepted it (the id the rows are found by)', () => {
    expect(userIdOf({ user_id: 'alice' })).toEqual({ userId: 'alice' });
    expect(userIdOf({ user_id: ' alice ' })).toEqual({ userId: ' alice ' });
  });

  it.each([
    [undefined, /no metadata.user_id/],
    [{}, /no metadata.user_id/],
    [{ user_id: null }, /no metadata.user_id/],
    [{ user_id: '' }, /not a non-empty string/],
    [{ user_id: 42 }, /not a non-empty string/],
    [{ user_id: 'x'.repeat(201) }, /at most 200/],
  ])('has no user for %j', (metadata, reason) => {
    const who = userIdOf(metadata);
    expect(who.userId).toBeUndefined();
    expect('reason' in who && who.reason).toMatch(reason);
  });
});

describe('memory items and their summary', () => {
  const hit = { run_id: 'r1', thread_id: 't1', turn: 2, text: 'User: a\n  b\nAssistant: c', score: 0.5 };

  it('carry the source thread, run and turn', () => {
    expect(memoryItems([hit])).toEqual([
      { thread_id: 't1', run_id: 'r1', turn: 2, content: hit.text, score: 0.5 },
    ]);
  });

  it('read one line per item, whitespace collapsed and long text cut', () => {
    const long = { ...hit, text: 'w '.repeat(400) };
    const lines = describeItems(memoryItems([hit, long])).split('\n');
    expect(lines[0]).toBe('[recalled] User: a b Assistant: c (score 0.5)');
    expect(lines[1].length).toBeLessThan(330);
    expect(lines[1]).toContain('…');
  });
});

describe('the similarity threshold with hash-embedding-v1', () => {
  const memory = (fact: string) => `User: Remember this: ${fact}\nAssistant: Noted.`;
  const score = (q: string, m: string) => cosine(hashEmbedding(q), hashEmbedding(m));

  it('keeps a related memory and drops unrelated ones', () => {
    const question = 'What is my favourite colour?';
    expect(score(question, memory('my favourite colour is teal.'))).toBeGreaterThanOrEqual(VECTOR_MIN_SCORE);
    expect(score(question, memory('my car is a red bicycle.'))).toBeLessThan(VECTOR_MIN_SCORE);
    expect(score('What is the weather in Paris?', memory('my favourite colour is teal.'))).toBeLessThan(
      VECTOR_MIN_SCORE,
    );
  });
});

describe('relatedTurns (thread-local fallback)', () => {
  const state = {
    thread_id: '00000000-0000-4000-8000-000000000001',
    turn: 2,
    prompts: ['my favourite colour is teal', 'the weather is fine', 'what is my favourite colour'],
    action_history: [[], [], []],
  } as unknown as RuntimeState;

  it('finds earlier turns of the thread by word overlap', () => {
    const items = relatedTurns(state);
    expect(items.map((i) => i.turn)).toEqual([0]);
    expect(items[0]).toMatchObject({ thread_id: state.thread_id, content: 'my favourite colour is teal' });
  });
});
