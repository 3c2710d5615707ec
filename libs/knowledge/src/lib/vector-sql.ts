/**
 * Exact cosine in SQL without pgvector. Stored vectors and the query are unit vectors, so the
 * cosine is the dot product Σ q[i]·e[i]; only the query's non-zero dimensions contribute, so the
 * expression names just those (hash embeddings of short queries have a handful). Measured at
 * 20,000 chunks × 256 dimensions (tools/bench/RETRIEVAL-RESULTS.md): `sum(a*b) FROM unnest(...)`
 * per row took ~650 ms a query, this takes ~40 ms for a short query and ~160 ms for a dense one.
 */

/**
 * The dot product of `column` (a float4[]/float8[] column, 1-based) with `query`, as a SQL
 * expression. Only numbers reach the text (integer subscripts and finite weights written by
 * Number#toString), so it is safe to inline; a non-finite weight is a bug and throws.
 */
export function dotProductSql(column: string, query: readonly number[]): string {
  if (!/^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?$/.test(column)) {
    throw new Error(`dotProductSql: "${column}" is not a plain column reference`);
  }
  const terms: string[] = [];
  query.forEach((w, i) => {
    if (!Number.isFinite(w)) {
      throw new Error(`dotProductSql: query dimension ${i} is ${w}`);
    }
    if (w !== 0) {
      terms.push(`${column}[${i + 1}]*(${w.toString()})`);
    }
  });
  // A zero query (no features) is orthogonal to everything.
  return terms.length ? `(${terms.join(' + ')})` : '0::float8';
}

/**
 * A LATERAL that detoasts a row's array once (`e` || '{}' builds a plain copy): subscripting a
 * compressed array directly decompresses it again for every subscript.
 */
export function detoastedArray(column: string, alias: string, elementType: 'float4' | 'float8'): string {
  return `LATERAL (SELECT ${column} || ARRAY[]::${elementType}[] AS e OFFSET 0) ${alias}`;
}
