// Fits a tool's result into the action's byte budget while keeping its shape: objects keep their
// keys, arrays keep their leading elements whole, long strings are cut (never inside a character).
// The planner and reflection then read a smaller result of the same form, and the full one stays
// behind the result's reference.

const ELLIPSIS = '…';

/** Bytes of the value as JSON text (UTF-8). */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? 'null', 'utf8');
}

/** The largest n in [0, hi] with fits(n), for a predicate that holds up to some point only. */
function largest(hi: number, fits: (n: number) => boolean): number {
  let lo = 0;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(mid)) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

function shrinkString(s: string, maxBytes: number): string | null {
  const chars = Array.from(s);
  const n = largest(chars.length, (k) => jsonBytes(chars.slice(0, k).join('') + ELLIPSIS) <= maxBytes);
  if (n === 0 && jsonBytes(ELLIPSIS) > maxBytes) {
    return null;
  }
  return chars.slice(0, n).join('') + ELLIPSIS;
}

function shrinkArray(items: unknown[], maxBytes: number): unknown[] | null {
  const n = largest(items.length, (k) => jsonBytes(items.slice(0, k)) <= maxBytes);
  if (n > 0) {
    return items.slice(0, n);
  }
  if (maxBytes < 2) {
    return null;
  }
  // Not even the first element fits whole: show a shrunk first element rather than nothing.
  const first = items.length > 0 ? shrinkToFit(items[0], maxBytes - 2) : undefined;
  return first === undefined || first === null ? [] : [first];
}

function shrinkObject(obj: Record<string, unknown>, maxBytes: number): Record<string, unknown> | null {
  const out: Record<string, unknown> = { ...obj };
  const done = new Set<string>();
  // Shrink the largest field first until the whole fits; each field is shrunk at most once.
  while (jsonBytes(out) > maxBytes) {
    const candidates = Object.keys(out).filter((k) => !done.has(k));
    if (candidates.length === 0) {
      return jsonBytes({}) <= maxBytes ? {} : null;
    }
    const key = candidates.reduce((a, b) => (jsonBytes(out[a]) >= jsonBytes(out[b]) ? a : b));
    done.add(key);
    const room = maxBytes - (jsonBytes(out) - jsonBytes(out[key]));
    const smaller = room > 0 ? shrinkToFit(out[key], room) : null;
    out[key] = smaller;
  }
  return out;
}

/**
 * The value itself when its JSON fits in `maxBytes`, else a smaller value of the same shape that
 * does (null when nothing does).
 */
export function shrinkToFit(value: unknown, maxBytes: number): unknown {
  if (jsonBytes(value) <= maxBytes) {
    return value;
  }
  if (typeof value === 'string') {
    return shrinkString(value, maxBytes);
  }
  if (Array.isArray(value)) {
    return shrinkArray(value, maxBytes);
  }
  if (value !== null && typeof value === 'object') {
    return shrinkObject(value as Record<string, unknown>, maxBytes);
  }
  return null;
}

/** What a truncated tool result becomes in the action. */
export interface TruncatedResult {
  /** The result shrunk to the cap, same shape. */
  preview: unknown;
  output_truncated: true;
  /** Size of the full result as JSON. */
  output_bytes: number;
  /** What the full result is made of (`shapeOf`): what the agent may ask a part of. */
  output_shape: string;
  /**
   * `tool-output:<id>`: the agent reads a part with `extract_data_by_path`; a client fetches the
   * whole with GET /v1/runs/:run_id/tool-outputs/:ref.
   */
  reference: string;
}

const SHAPE_MAX = 300;

/**
 * A value's shape in a line: `{columns: array(2) of string, rows: array(5000) of array(2), …}`.
 * Two levels deep, an array described by its first element, at most SHAPE_MAX characters.
 */
export function shapeOf(value: unknown, depth = 2): string {
  const text = shape(value, depth);
  return text.length > SHAPE_MAX ? `${text.slice(0, SHAPE_MAX - 1)}…` : text;
}

function shape(value: unknown, depth: number): string {
  if (Array.isArray(value)) {
    const of = value.length > 0 && depth > 0 ? ` of ${shape(value[0], depth - 1)}` : '';
    return `array(${value.length})${of}`;
  }
  if (value && typeof value === 'object') {
    const entries = Object.entries(value);
    if (depth === 0) {
      return `object(${entries.length} keys)`;
    }
    const shown = entries.slice(0, 12).map(([k, v]) => `${k}: ${shape(v, depth - 1)}`);
    return `{${shown.join(', ')}${entries.length > 12 ? ', …' : ''}}`;
  }
  return value === null ? 'null' : typeof value;
}

/** The truncated form of a result whose JSON is larger than `maxBytes`: the whole envelope fits. */
export function truncatedResult(result: unknown, maxBytes: number, reference: string): TruncatedResult {
  const envelope: TruncatedResult = {
    preview: null,
    output_truncated: true,
    output_bytes: jsonBytes(result),
    output_shape: shapeOf(result),
    reference,
  };
  const room = Math.max(0, maxBytes - jsonBytes(envelope));
  return { ...envelope, preview: shrinkToFit(result, room) };
}

/** jsonb refuses \u0000 in strings; the stored copy gets U+FFFD instead (an escaped backslash before it is kept). */
export function jsonbSafe(json: string): string {
  return json.replace(/(?<!\\)((?:\\\\)*)\\u0000/g, '$1\\ufffd');
}
