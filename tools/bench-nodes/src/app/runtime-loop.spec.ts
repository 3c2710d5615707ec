import { loopRounds, payload, plannerNext } from './runtime-loop';

describe(loopRounds.name, () => {
  it('reads the round count of a loop prompt', () => {
    expect(loopRounds('[runtime-loop] rounds=199')).toBe(199);
  });

  it.each(['hello', '[runtime-loop] rounds=', '[runtime-loop] rounds=3 and more'])('refuses %j', (p) => {
    expect(() => loopRounds(p)).toThrow('not a runtime-loop prompt');
  });
});

describe(plannerNext.name, () => {
  const tools = (n: number) => Array.from({ length: n }, () => ({ node: 'tool' }));
  it.each([
    [0, 2, ['tool']],
    [1, 2, ['tool']],
    [2, 2, []],
    [0, 0, []],
  ])('%d tool actions of %d rounds → %j', (done, rounds, next) => {
    expect(plannerNext([{ node: 'start' }, ...tools(done), { node: 'reflection' }], rounds)).toEqual(next);
  });
});

describe(payload.name, () => {
  it('is ~1 KB and different every time', () => {
    const a = payload().data;
    expect(a).toHaveLength(1024);
    expect(payload().data).not.toBe(a);
  });
});
