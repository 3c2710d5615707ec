import { markdownTable } from '@switchyard/provider-tools';

/** A cell as a spreadsheet holds it (dates as `YYYY-MM-DD HH:MM:SS` text, empty as null). */
export type Cell = string | number | boolean | null;

/** A table as pandas' DataFrame holds it: named columns, rows of cells in column order. */
export interface Frame {
  columns: string[];
  rows: Cell[][];
}

const asCell = (v: unknown): Cell =>
  v === undefined || v === null
    ? null
    : typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'
      ? v
      : JSON.stringify(v);

/**
 * `pd.DataFrame(records)`: the columns are the records' keys in order of first appearance, a key
 * a record lacks is null in its row. A record that is not an object is refused.
 */
export function frameFromRecords(records: readonly unknown[]): Frame {
  const columns: string[] = [];
  const seen = new Set<string>();
  for (const [i, r] of records.entries()) {
    if (!r || typeof r !== 'object' || Array.isArray(r)) {
      throw new TypeError(`row ${i} is not an object of column values`);
    }
    for (const k of Object.keys(r)) {
      if (!seen.has(k)) {
        seen.add(k);
        columns.push(k);
      }
    }
  }
  return {
    columns,
    rows: records.map((r) => columns.map((c) => asCell((r as Record<string, unknown>)[c]))),
  };
}

/** `df.to_dict(orient="records")`. */
export function recordsOf(frame: Frame): Record<string, Cell>[] {
  return frame.rows.map((row) => Object.fromEntries(frame.columns.map((c, i) => [c, row[i] ?? null])));
}

/** `pd.concat(frames, ignore_index=True)`: rows one after another, columns united in order. */
export function concatFrames(frames: readonly Frame[]): Frame {
  const columns = [...new Set(frames.flatMap((f) => f.columns))];
  return {
    columns,
    rows: frames.flatMap((f) => {
      const at = columns.map((c) => f.columns.indexOf(c));
      return f.rows.map((row) => at.map((i) => (i < 0 ? null : (row[i] ?? null))));
    }),
  };
}

const keyRank = (v: Cell): number =>
  v === null ? 3 : typeof v === 'number' ? 0 : typeof v === 'boolean' ? 1 : 2;

function compareKeys(a: Cell, b: Cell): number {
  const r = keyRank(a) - keyRank(b);
  if (r !== 0 || a === null || b === null) {
    return r;
  }
  if (typeof a === 'number' && typeof b === 'number') {
    return a - b;
  }
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * `left.merge(right, on=key, how="outer")`: every key of either side, sorted; each pair of rows
 * that share a key, a row of one side alone padded with nulls. The other columns both sides have
 * are suffixed `_x` (left) and `_y` (right), as pandas does.
 */
export function outerJoin(left: Frame, right: Frame, key: string): Frame {
  const li = left.columns.indexOf(key);
  const ri = right.columns.indexOf(key);
  if (li < 0 || ri < 0) {
    throw new Error(`the join column "${key}" is not in ${li < 0 ? 'the first' : 'a later'} table`);
  }
  const rightOthers = right.columns.map((c, i) => ({ c, i })).filter((x) => x.i !== ri);
  const shared = new Set(rightOthers.map((x) => x.c).filter((c) => left.columns.includes(c)));
  const columns = [
    ...left.columns.map((c) => (c !== key && shared.has(c) ? `${c}_x` : c)),
    ...rightOthers.map((x) => (shared.has(x.c) ? `${x.c}_y` : x.c)),
  ];
  const byKey = (f: Frame, i: number) => {
    const m = new Map<string, Cell[][]>();
    for (const row of f.rows) {
      const k = JSON.stringify(row[i] ?? null);
      m.set(k, [...(m.get(k) ?? []), row]);
    }
    return m;
  };
  const lk = byKey(left, li);
  const rk = byKey(right, ri);
  const keys = [...new Set([...lk.keys(), ...rk.keys()])].map((k) => JSON.parse(k) as Cell).sort(compareKeys);
  const rows: Cell[][] = [];
  for (const k of keys) {
    const id = JSON.stringify(k);
    const ls = lk.get(id) ?? [null];
    const rs = rk.get(id) ?? [null];
    for (const l of ls) {
      for (const r of rs) {
        const leftPart = l ?? left.columns.map((_, i) => (i === li ? k : null));
        rows.push([
          ...leftPart.map((v) => v ?? null),
          ...rightOthers.map((x) => (r ? (r[x.i] ?? null) : null)),
        ]);
      }
    }
  }
  return { columns, rows };
}

/** `df.head(n).to_markdown(index=False)` (tabulate's pipe table). */
export function frameMarkdown(frame: Frame, head?: number): string {
  const rows = head === undefined ? frame.rows : frame.rows.slice(0, head);
  return markdownTable(
    frame.columns,
    rows.map((r) => r.map((c) => (typeof c === 'boolean' ? (c ? 'True' : 'False') : c))),
    { index: false },
  );
}
