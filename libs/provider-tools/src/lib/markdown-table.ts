// pandas' `to_markdown()` (tabulate's "pipe" format), which RAGFlow's YahooFinance report is made
// of: a blank-headed index column, numbers right-aligned and written as Python's `format(x, 'g')`,
// missing values as `nan`.

export type Cell = string | number | null | undefined;

/** Python `format(x, 'g')`: 6 significant digits, trailing zeros dropped, exponent past 1e16 or below 1e-4. */
export function formatG(x: number): string {
  if (Number.isNaN(x)) {
    return 'nan';
  }
  if (!Number.isFinite(x)) {
    return x > 0 ? 'inf' : '-inf';
  }
  if (x === 0) {
    return '0';
  }
  const exp = Math.floor(Math.log10(Math.abs(Number(x.toPrecision(6)))));
  if (exp < -4 || exp >= 6) {
    const [mantissa, e] = x.toExponential(5).split('e');
    const m = mantissa.replace(/\.?0+$/, '');
    const n = Number(e);
    return `${m}e${n < 0 ? '-' : '+'}${String(Math.abs(n)).padStart(2, '0')}`;
  }
  return x
    .toFixed(Math.max(0, 5 - exp))
    .replace(/(\.\d*?)0+$/, '$1')
    .replace(/\.$/, '');
}

/** How pandas was asked to print the table (`to_markdown(index=…, floatfmt=…)`) and what null stands for. */
export interface MarkdownTableOptions {
  /** A first, blank-headed index column (pandas' default); each row then starts with its index. */
  index?: boolean;
  /** `floatfmt=".Nf"`: floats with N decimals instead of Python's 'g'. */
  decimals?: number;
  /** `nan` (default): a missing number (NaN), which makes its column float; `none`: Python's None, an empty cell. */
  nullIs?: 'nan' | 'none';
}

/** A pipe table: `header` names the columns (after the index column), each row is [index?, ...cells]. */
export function markdownTable(
  header: readonly string[],
  rows: readonly (readonly Cell[])[],
  opts: MarkdownTableOptions = {},
): string {
  const index = opts.index ?? true;
  const none = opts.nullIs === 'none';
  const columns = index ? ['', ...header] : [...header];
  const missing = (c: Cell) => c === null || c === undefined;
  const numeric = columns.map(
    (_, i) =>
      rows.length > 0 &&
      rows.every((r) => typeof r[i] === 'number' || missing(r[i])) &&
      // NaN is a float; a column of None only is no number column.
      (!none || rows.some((r) => typeof r[i] === 'number')),
  );
  // tabulate types a column by all its values: integers only (no missing value) print in full,
  // as an object column of Python ints does (yfinance builds its statements so); one float or
  // one NaN makes the column float, printed with 'g' (or floatfmt). None is not a value to it.
  const ints = columns.map(
    (_, i) =>
      numeric[i] &&
      rows.every((r) => (none && missing(r[i])) || (typeof r[i] === 'number' && Number.isInteger(r[i]))),
  );
  const text = (c: Cell, i: number): string => {
    if (missing(c)) {
      return none ? '' : 'nan';
    }
    if (typeof c !== 'number') {
      return c;
    }
    if (ints[i]) {
      return String(c);
    }
    return opts.decimals === undefined ? formatG(c) : c.toFixed(opts.decimals);
  };
  const raw = rows.map((r) => columns.map((_, i) => text(r[i], i)));
  // tabulate's numalign="decimal": a number column's values are padded on the right so that
  // their decimal points (or exponents) line up, then right-aligned.
  const decimals = columns.map((_, i) => (numeric[i] ? Math.max(...raw.map((r) => afterPoint(r[i]))) : 0));
  const cells = raw.map((r) =>
    r.map((s, i) => (numeric[i] ? s + ' '.repeat(decimals[i] - afterPoint(s)) : s)),
  );
  // tabulate's MIN_PADDING: a column is at least its header and two more wide.
  const width = columns.map((h, i) => Math.max(h.length + 2, ...cells.map((r) => r[i].length)));
  const pad = (s: string, i: number) => (numeric[i] ? s.padStart(width[i]) : s.padEnd(width[i]));
  const line = (parts: string[]) => `| ${parts.map(pad).join(' | ')} |`;
  const rule = `|${width.map((w, i) => (numeric[i] ? `${'-'.repeat(w + 1)}:` : `:${'-'.repeat(w + 1)}`)).join('|')}|`;
  return [line(columns), rule, ...cells.map(line)].join('\n');
}

/** tabulate's `_afterpoint`: how many characters follow a number's point (or exponent mark); -1 for none. */
function afterPoint(s: string): number {
  if (/^[+-]?\d+$/.test(s) || !/^[+-]?(\d|\.\d|nan|inf)/i.test(s)) {
    return -1;
  }
  let pos = s.lastIndexOf('.');
  if (pos < 0) {
    pos = s.toLowerCase().lastIndexOf('e');
  }
  return pos >= 0 ? s.length - pos - 1 : -1;
}
