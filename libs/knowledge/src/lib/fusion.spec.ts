import { RRF_K, reciprocalRankFusion } from './fusion';

const r = (rank: number, k = RRF_K) => 1 / (k + rank);

describe(reciprocalRankFusion.name, () => {
  it('uses k = 60 by default', () => {
    expect(RRF_K).toBe(60);
  });

  it.each<[string, string[][], { key: string; score: number }[]]>([
    ['no rankings', [], []],
    ['one empty ranking', [[]], []],
    [
      'a single ranking keeps its order',
      [['a', 'b', 'c']],
      [
        { key: 'a', score: r(1) },
        { key: 'b', score: r(2) },
        { key: 'c', score: r(3) },
      ],
    ],
    [
      'an item in both rankings beats items in one',
      [
        ['a', 'b'],
        ['b', 'c'],
      ],
      [
        { key: 'b', score: r(2) + r(1) },
        { key: 'a', score: r(1) },
        { key: 'c', score: r(2) },
      ],
    ],
    [
      'ties keep first-seen order',
      [
        ['a', 'b'],
        ['b', 'a'],
      ],
      [
        { key: 'a', score: r(1) + r(2) },
        { key: 'b', score: r(2) + r(1) },
      ],
    ],
    [
      'a duplicate within a ranking counts once, at its best rank',
      [['a', 'a', 'b']],
      [
        { key: 'a', score: r(1) },
        { key: 'b', score: r(3) },
      ],
    ],
  ])('%s', (_name, rankings, expected) => {
    const fused = reciprocalRankFusion(rankings);
    expect(fused.map((f) => f.key)).toEqual(expected.map((e) => e.key));
    fused.forEach((f, i) => expect(f.score).toBeCloseTo(expected[i].score, 12));
  });

  it('lets a consistently good item beat one that is first in one ranking only', () => {
    const fused = reciprocalRankFusion([
      ['x', 'y', 'z'],
      ['y', 'z', 'w'],
      ['z', 'y', 'x'],
    ]);
    expect(fused[0].key).toBe('y');
  });

  it('honours another k', () => {
    expect(reciprocalRankFusion([['a']], 1)[0].score).toBeCloseTo(0.5, 12);
  });
});
