import { jsonBytes, shapeOf, shrinkToFit, truncatedResult } from './output-cap';

describe('shrinkToFit', () => {
  it('returns a value that fits unchanged', () => {
    const v = { a: [1, 2, 3], s: 'short' };
    expect(shrinkToFit(v, 1000)).toBe(v);
  });

  it('keeps whole leading rows of a large array and the other fields', () => {
    const rows = Array.from({ length: 500 }, (_, i) => [i, `name-${i}`, 'x'.repeat(40)]);
    const result = { columns: ['id', 'name', 'pad'], rows, row_count: 500, truncated: false };
    const small = shrinkToFit(result, 2000) as typeof result;
    expect(jsonBytes(small)).toBeLessThanOrEqual(2000);
    expect(small.columns).toEqual(['id', 'name', 'pad']);
    expect(small.row_count).toBe(500);
    expect(small.rows.length).toBeGreaterThan(10);
    expect(small.rows.length).toBeLessThan(500);
    expect(small.rows).toEqual(rows.slice(0, small.rows.length));
  });

  it('cuts long strings on a character boundary and marks the cut', () => {
    const body = 'é'.repeat(10_000);
    const out = shrinkToFit({ status: 200, body }, 300) as { status: number; body: string };
    expect(jsonBytes(out)).toBeLessThanOrEqual(300);
    expect(out.status).toBe(200);
    expect(out.body.endsWith('…')).toBe(true);
    expect(out.body.slice(0, -1)).toBe('é'.repeat(out.body.length - 1));
  });

  it('shrinks the first element when not even one fits whole', () => {
    const out = shrinkToFit(['y'.repeat(5000), 'z'], 100) as string[];
    expect(out).toHaveLength(1);
    expect(out[0].startsWith('yyy')).toBe(true);
    expect(jsonBytes(out)).toBeLessThanOrEqual(100);
  });

  it('gives null when nothing fits', () => {
    expect(shrinkToFit(123456789, 3)).toBeNull();
  });
});

describe('truncatedResult', () => {
  it('fits the whole envelope, preview included, in the cap', () => {
    const result = { rows: Array.from({ length: 1000 }, (_, i) => ({ i, text: 'lorem ipsum '.repeat(5) })) };
    const out = truncatedResult(result, 4096, 'tool-output:00000000-0000-4000-8000-000000000000');
    expect(jsonBytes(out)).toBeLessThanOrEqual(4096);
    expect(out.output_truncated).toBe(true);
    expect(out.output_bytes).toBe(jsonBytes(result));
    expect(out.reference).toBe('tool-output:00000000-0000-4000-8000-000000000000');
    expect((out.preview as typeof result).rows.length).toBeGreaterThan(0);
  });
});

describe('shapeOf', () => {
  it('says what a value is made of, two levels deep, arrays by their first element', () => {
    expect(
      shapeOf({ columns: ['id', 'note'], rows: [[1, 'a']], row_count: 1, truncated: false, source: null }),
    ).toBe(
      '{columns: array(2) of string, rows: array(1) of array(2), row_count: number, truncated: boolean, source: null}',
    );
    expect(shapeOf([{ a: { b: 1 } }])).toBe('array(1) of {a: object(1 keys)}');
    expect(shapeOf('x')).toBe('string');
  });

  it('stays within a line', () => {
    const wide = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`a_rather_long_key_${i}`, 'v']));
    expect(shapeOf(wide).length).toBeLessThanOrEqual(300);
    expect(shapeOf(wide)).toMatch(/…$/);
  });

  it('is in every truncated result', () => {
    const out = truncatedResult(
      { rows: Array.from({ length: 500 }, (_, i) => [i, 'x'.repeat(50)]) },
      4096,
      'tool-output:00000000-0000-4000-8000-000000000000',
    );
    expect(out.output_shape).toBe('{rows: array(500) of array(2)}');
  });
});
