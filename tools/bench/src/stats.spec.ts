import { fmtBytes, fmtMs, markdownTable, median } from './stats';

describe('stats', () => {
  it('takes the median of odd and even counts', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
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
