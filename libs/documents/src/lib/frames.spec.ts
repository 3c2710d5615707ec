import { concatFrames, frameFromRecords, frameMarkdown, outerJoin, recordsOf } from './frames';

describe('frames (pandas DataFrame behaviour)', () => {
  it('builds columns from records in order of first appearance, nulls where a key is missing', () => {
    const f = frameFromRecords([
      { a: 1, b: 'x' },
      { c: true, a: 2 },
    ]);
    expect(f.columns).toEqual(['a', 'b', 'c']);
    expect(recordsOf(f)).toEqual([
      { a: 1, b: 'x', c: null },
      { a: 2, b: null, c: true },
    ]);
  });

  it('refuses a row that is not an object, naming it', () => {
    expect(() => frameFromRecords([{ a: 1 }, [1, 2]])).toThrow('row 1 is not an object');
    expect(() => frameFromRecords(['x'])).toThrow('row 0');
  });

  it('concatenates with united columns (ignore_index)', () => {
    const f = concatFrames([
      { columns: ['a', 'b'], rows: [[1, 2]] },
      { columns: ['b', 'c'], rows: [[3, 4]] },
    ]);
    expect(f).toEqual({
      columns: ['a', 'b', 'c'],
      rows: [
        [1, 2, null],
        [null, 3, 4],
      ],
    });
  });

  it('outer-joins on a key: sorted keys, pairs of matches, suffixes for shared columns', () => {
    const left = {
      columns: ['id', 'name', 'v'],
      rows: [
        [2, 'b', 1],
        [1, 'a', 2],
        [3, 'c', 3],
      ],
    };
    const right = {
      columns: ['v', 'id'],
      rows: [
        [10, 1],
        [20, 4],
        [30, 1],
      ],
    };
    const f = outerJoin(left, right, 'id');
    expect(f.columns).toEqual(['id', 'name', 'v_x', 'v_y']);
    expect(f.rows).toEqual([
      [1, 'a', 2, 10],
      [1, 'a', 2, 30],
      [2, 'b', 1, null],
      [3, 'c', 3, null],
      [4, null, null, 20],
    ]);
  });

  it('refuses a join column one side lacks', () => {
    expect(() => outerJoin({ columns: ['a'], rows: [] }, { columns: ['b'], rows: [] }, 'a')).toThrow(
      'the join column "a" is not in a later table',
    );
    expect(() => outerJoin({ columns: ['a'], rows: [] }, { columns: ['b'], rows: [] }, 'b')).toThrow(
      'the first',
    );
  });

  it('prints the head as a pipe table without index (tabulate), numbers right-aligned', () => {
    const f = {
      columns: ['name', 'n', 'ok'],
      rows: [
        ['apple', 3, true],
        ['kiwi', 12, false],
        ['fig', 1, null],
      ],
    };
    expect(frameMarkdown(f, 2)).toBe(
      [
        '| name   |   n | ok    |',
        '|:-------|----:|:------|',
        '| apple  |   3 | True  |',
        '| kiwi   |  12 | False |',
      ].join('\n'),
    );
  });
});
