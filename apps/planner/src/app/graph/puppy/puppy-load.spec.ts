import { minimalPdf } from '@switchyard/knowledge';
import { parseLoadedFile } from './puppy-load';

const buf = (s: string) => Buffer.from(s, 'utf8');

describe(parseLoadedFile.name, () => {
  it('reads text and markdown as Python text mode does (universal newlines)', async () => {
    // python3: open(path, "r", encoding="utf-8").read() of b"a\r\nb\rc\n" is "a\nb\nc\n".
    await expect(parseLoadedFile('txt', buf('a\r\nb\rc\n'), 'f')).resolves.toBe('a\nb\nc\n');
    await expect(parseLoadedFile('markdown', buf('# T\n\n*x*'), 'f')).resolves.toBe('# T\n\n*x*');
  });

  it('reads JSON as its value and CSV as pandas records', async () => {
    await expect(parseLoadedFile('json', buf('{"b": [1, 2.5], "a": null}'), 'f')).resolves.toEqual({
      b: [1, 2.5],
      a: null,
    });
    // pd.read_csv(...).to_dict("records"): integer and number columns typed, an empty cell missing.
    await expect(parseLoadedFile('csv', buf('name,n,score\nann,1,2.5\nbob,2,\n'), 'f')).resolves.toEqual([
      { name: 'ann', n: 1, score: 2.5 },
      { name: 'bob', n: 2, score: null },
    ]);
  });

  it('reads a PDF as its text', async () => {
    await expect(parseLoadedFile('pdf', minimalPdf('Hello load'), 'f')).resolves.toContain('Hello load');
  });

  it('fails a file it cannot read, naming it', async () => {
    await expect(parseLoadedFile('json', buf('{nope'), '"a.json" (id1)')).rejects.toThrow(
      'file "a.json" (id1) is not valid JSON',
    );
    await expect(parseLoadedFile('image', buf('x'), '"p.png" (id2)')).rejects.toThrow(
      'file "p.png" (id2) is of type image: a load reads txt, markdown, json, csv, pdf files here',
    );
  });
});
