import { detoastedArray, dotProductSql } from './vector-sql';

describe('dotProductSql', () => {
  it('names only the non-zero dimensions of the query, 1-based', () => {
    expect(dotProductSql('x.e', [0, 0.5, 0, -0.25])).toBe('(x.e[2]*(0.5) + x.e[4]*(-0.25))');
  });

  it('is a zero constant for a zero query', () => {
    expect(dotProductSql('x.e', [0, 0, 0])).toBe('0::float8');
  });

  it('writes exponents as SQL reads them', () => {
    expect(dotProductSql('e', [1e-7])).toBe('(e[1]*(1e-7))');
  });

  it('refuses non-finite weights and anything but a column reference', () => {
    expect(() => dotProductSql('x.e', [Number.NaN])).toThrow(/dimension 0 is NaN/);
    expect(() => dotProductSql('x.e', [0, Number.POSITIVE_INFINITY])).toThrow(/dimension 1/);
    expect(() => dotProductSql('e); DROP TABLE chunks; --', [1])).toThrow(/not a plain column reference/);
  });
});

describe('detoastedArray', () => {
  it('copies the array once per row in a LATERAL', () => {
    expect(detoastedArray('c.embedding', 'x', 'float8')).toBe(
      'LATERAL (SELECT c.embedding || ARRAY[]::float8[] AS e OFFSET 0) x',
    );
  });
});
