import { hashStr2Int } from '@switchyard/graph';
import { formalizedContent } from './kb-prompt';
import { formatG, markdownTable } from './markdown-table';

describe(formatG.name, () => {
  it.each([
    [364980000000, '3.6498e+11'],
    [0.88, '0.88'],
    [123456, '123456'],
    [1234567, '1.23457e+06'],
    [0.0001, '0.0001'],
    [0.00001234, '1.234e-05'],
    [-2.5, '-2.5'],
    [1e16, '1e+16'],
    [100, '100'],
    [NaN, 'nan'],
  ])("format(%d, 'g') → %s", (x, text) => {
    expect(formatG(x)).toBe(text);
  });
});

describe(markdownTable.name, () => {
  it("pads every column to its header and two more (tabulate's MIN_PADDING, as pandas' own docs show)", () => {
    // pandas.Series.to_markdown's docstring example, verbatim.
    expect(
      markdownTable(
        ['animal'],
        [
          ['0', 'elk'],
          ['1', 'pig'],
          ['2', 'dog'],
          ['3', 'quetzal'],
        ].map(([i, a]) => [Number(i), a]),
      ),
    ).toBe(
      [
        '|    | animal   |',
        '|---:|:---------|',
        '|  0 | elk      |',
        '|  1 | pig      |',
        '|  2 | dog      |',
        '|  3 | quetzal  |',
      ].join('\n'),
    );
  });

  it('prints like to_markdown(index=False, floatfmt=".6f") with None as an empty cell', () => {
    expect(
      markdownTable(
        ['id', 'price', 'name'],
        [
          [1, 2.5, 'a'],
          [null, 3, null],
        ],
        { index: false, decimals: 6, nullIs: 'none' },
      ),
    ).toBe(
      [
        '|   id |    price | name   |',
        '|-----:|---------:|:-------|',
        '|    1 | 2.500000 | a      |',
        '|      | 3.000000 |        |',
      ].join('\n'),
    );
  });

  // tabulate's numalign="decimal" (pandas' to_markdown keeps it): points line up, nan has none.
  it("types each column as tabulate does: integers only in full, one float or missing value makes it 'g'", () => {
    expect(
      markdownTable(
        ['a', 'b', 'c'],
        [
          ['x', 15116786000, 15116786000, 15116786000],
          ['y', 2, 2.5, null],
        ],
      ),
    ).toBe(
      [
        '|    |           a |           b |             c |',
        '|:---|------------:|------------:|--------------:|',
        '| x  | 15116786000 | 1.51168e+10 |   1.51168e+10 |',
        '| y  |           2 | 2.5         | nan           |',
      ].join('\n'),
    );
  });

  it('writes a pipe table with a blank-headed index column, numbers right-aligned, missing values as nan', () => {
    expect(
      markdownTable(
        ['2024-09-30 00:00:00'],
        [
          ['Total Assets', 364980000000],
          ['Net Debt', null],
        ],
      ),
    ).toBe(
      [
        '|              |   2024-09-30 00:00:00 |',
        '|:-------------|----------------------:|',
        '| Total Assets |            3.6498e+11 |',
        '| Net Debt     |          nan          |',
      ].join('\n'),
    );
  });

  it('left-aligns a text column', () => {
    expect(markdownTable(['0'], [['symbol', 'AAPL']]).split('\n')[1]).toBe('|:-------|:-----|');
  });
});

describe(formalizedContent.name, () => {
  it("renders results as RAGFlow's kb_prompt with hash ids, skipping empty ones", () => {
    expect(hashStr2Int('Apple designs iPhones.')).toBe(77813966);
    expect(
      formalizedContent([
        { title: 'Apple', url: 'https://apple.example/a', content: 'Apple designs iPhones.' },
        { title: 'Empty', url: 'https://x.example', content: '' },
      ]),
    ).toBe(
      '\nID: 198\n├── Title: Apple\n├── URL: https://apple.example/a\n└── Content:\nApple designs iPhones.',
    );
  });

  it('drops inline base64 images and folds newlines in titles', () => {
    expect(
      formalizedContent([{ title: 'a\n\nb', url: '', content: 'x![img](data:image/png;base64,AAAA)y' }]),
    ).toContain('├── Title: a b\n└── Content:\nxy');
  });
});
