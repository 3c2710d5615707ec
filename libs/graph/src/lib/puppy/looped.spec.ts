import { isLoop, loopedCombinations } from './looped';

describe(loopedCombinations.name, () => {
  it('runs the Cartesian product of looped inputs, the first input varying slowest', () => {
    const combos = loopedCombinations([
      { blockId: '2', looped: true, content: ['happy', 'subaru', 'yan'] },
      { blockId: '3', looped: true, content: ['Introduce yourself', 'Say hi'] },
    ]);
    expect(combos.map((c) => `${String(c['2'])}|${String(c['3'])}`)).toEqual([
      'happy|Introduce yourself',
      'happy|Say hi',
      'subaru|Introduce yourself',
      'subaru|Say hi',
      'yan|Introduce yourself',
      'yan|Say hi',
    ]);
  });

  it.each([
    [
      'no looped input: one combination, contents as they are',
      [{ blockId: 'a', looped: false, content: ['x'] }],
      [{ a: ['x'] }],
    ],
    [
      'list items are str()ed and fixed inputs join every combination',
      [
        { blockId: 'a', looped: true, content: [1, { k: 'v' }] },
        { blockId: 'b', looped: false, content: 'fixed' },
      ],
      [
        { a: '1', b: 'fixed' },
        { a: "{'k': 'v'}", b: 'fixed' },
      ],
    ],
    [
      'object entries become str({k: v})',
      [{ blockId: 'a', looped: true, content: { k: 1, j: 'x' } }],
      [{ a: "{'k': 1}" }, { a: "{'j': 'x'}" }],
    ],
    ['a looped text is not expanded', [{ blockId: 'a', looped: true, content: 'abc' }], [{ a: 'abc' }]],
  ])('%s', (_name, inputs, expected) => {
    expect(loopedCombinations(inputs)).toEqual(expected);
  });

  it('keeps the items raw when asked (modify edges)', () => {
    expect(loopedCombinations([{ blockId: 'a', looped: true, content: [{ k: 1 }] }], true)).toEqual([
      { a: { k: 1 } },
    ]);
  });

  it('is a loop with two combinations or more', () => {
    expect(isLoop([1])).toBe(false);
    expect(isLoop([1, 2])).toBe(true);
  });
});
