import { fmtBytes, fmtMs, markdownTable, median, percentile } from './stats';

describe('stats', () => {
  it('takes the median of odd and even counts', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });

  it.each([
    [[], 50, Number.NaN],
    [[5], 99, 5],
    [[1, 2, 3, 4], 50, 2],
    [Array.from({ length: 100 }, (_, i) => i + 1), 99, 99],
    [Array.from({ length: 100 }, (_, i) => 100 - i), 100, 100],
  ])('percentile of %j at p%d is %d', (values, p, want) => {
    expect(percentile(values, p)).toBe(want);
  });

  it('formats times and sizes', () => {
    expect(fmtMs(12.34)).toBe('12.3 ms');
    expect(fmtMs(1234)).toBe('1.23 s');
    expect(fmtBytes(512)).toBe('512 B');
    expect(fmtBytes(20 * 1024)).toBe('20.0 KiB');
  });

  it('aligns a markdown table', () => {
    expect(
      markdownTable(
        ['metric', 'a'],
        [
          ['x', '1'],
          ['longer', '22'],
        ],
      ),
    ).toBe(['| metric |  a |', '| :----- | -: |', '| x      |  1 |', '| longer | 22 |'].join('\n'));
  });
});
