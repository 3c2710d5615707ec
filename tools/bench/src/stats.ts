/** The median of a non-empty list (the mean of the two middle values for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) {
    return Number.NaN;
  }
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** The p-th percentile (0–100) by nearest rank; NaN for an empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) {
    return Number.NaN;
  }
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) {
    return 'n/a';
  }
  if (ms >= 10_000) {
    return `${(ms / 1000).toFixed(1)} s`;
  }
  if (ms >= 1000) {
    return `${(ms / 1000).toFixed(2)} s`;
  }
  return ms >= 100 ? `${ms.toFixed(0)} ms` : `${ms.toFixed(1)} ms`;
}

export function fmtBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) {
    return 'n/a';
  }
  if (bytes >= 1024 * 1024) {
    return `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
  }
  if (bytes >= 10 * 1024) {
    return `${(bytes / 1024).toFixed(1)} KiB`;
  }
  return `${Math.round(bytes)} B`;
}

export function fmtCount(n: number): string {
  return Number.isFinite(n) ? String(Math.round(n * 10) / 10) : 'n/a';
}

export function fmtRate(perSecond: number, unit: string): string {
  if (!Number.isFinite(perSecond)) {
    return 'n/a';
  }
  return `${perSecond >= 100 ? perSecond.toFixed(0) : perSecond.toFixed(perSecond >= 10 ? 1 : 2)} ${unit}/s`;
}

/** A markdown table; the first column is left-aligned, the others right-aligned. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  // The alignment row as prettier writes it, so a generated file stays as prettier leaves it.
  const rule = `| ${widths.map((w, i) => (i === 0 ? `:${'-'.repeat(w - 1)}` : `${'-'.repeat(w - 1)}:`)).join(' | ')} |`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}
