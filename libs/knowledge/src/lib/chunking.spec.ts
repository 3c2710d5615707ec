import { DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE } from '@switchyard/contracts';
import { chunkText } from './chunking';

describe(chunkText.name, () => {
  it('defaults to 800 characters with 100 of overlap', () => {
    expect([DEFAULT_CHUNK_SIZE, DEFAULT_CHUNK_OVERLAP]).toEqual([800, 100]);
  });

  it('keeps a short text whole', async () => {
    expect(await chunkText('  One short paragraph.  ')).toEqual(['One short paragraph.']);
  });

  it('returns nothing for blank text', async () => {
    expect(await chunkText(' \n\n ')).toEqual([]);
  });

  it('splits long text into chunks no longer than chunk_size, overlapping', async () => {
    const words = Array.from({ length: 200 }, (_, i) => `word${i}`);
    const chunks = await chunkText(words.join(' '), 100, 20);
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks) {
      expect(c.length).toBeLessThanOrEqual(100);
    }
    // Every word survives, and neighbouring chunks share words.
    const all = new Set(chunks.flatMap((c) => c.split(' ')));
    expect(words.every((w) => all.has(w))).toBe(true);
    const first = new Set(chunks[0].split(' '));
    expect(chunks[1].split(' ').some((w) => first.has(w))).toBe(true);
  });

  it('prefers paragraph boundaries', async () => {
    const a = 'alpha '.repeat(10).trim();
    const b = 'beta '.repeat(10).trim();
    expect(await chunkText(`${a}\n\n${b}`, 70, 0)).toEqual([a, b]);
  });
});
