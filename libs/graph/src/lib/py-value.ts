// RAGFlow is Python: the fixtures' outputs depend on how Python prints, compares and coerces
// values. These helpers reproduce the parts the canvas semantics use, on JSON values.

/** Python truthiness: `None`, `""`, `0`, `False`, `[]`, `{}` are false. */
export function pyTruthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === '') {
    return false;
  }
  if (Array.isArray(v)) {
    return v.length > 0;
  }
  if (typeof v === 'object') {
    return Object.keys(v).length > 0;
  }
  return !Number.isNaN(v);
}

const FLOAT_LITERAL = /^[+-]?((\d(_?\d)*)?\.?\d(_?\d)*([eE][+-]?\d(_?\d)*)?|(\d(_?\d)*)\.)$/;
const FLOAT_SPECIAL = /^[+-]?(inf|infinity|nan)$/i;

/** Python `float(v)`; throws (as Python raises) when `v` does not convert. */
export function pyFloat(v: unknown): number {
  if (typeof v === 'number') {
    return v;
  }
  if (typeof v === 'boolean') {
    return v ? 1 : 0;
  }
  if (typeof v === 'string') {
    const s = v.trim();
    if (FLOAT_LITERAL.test(s)) {
      return Number(s.replace(/_/g, ''));
    }
    if (FLOAT_SPECIAL.test(s)) {
      const sign = s.startsWith('-') ? -1 : 1;
      return /nan/i.test(s) ? Number.NaN : sign * Number.POSITIVE_INFINITY;
    }
    throw new Error(`could not convert string to float: '${v}'`);
  }
  throw new Error(`float() argument must be a string or a real number, not '${pyTypeName(v)}'`);
}

export function pyTypeName(v: unknown): string {
  if (v === null || v === undefined) {
    return 'NoneType';
  }
  if (Array.isArray(v)) {
    return 'list';
  }
  switch (typeof v) {
    case 'string':
      return 'str';
    case 'boolean':
      return 'bool';
    case 'number':
      return Number.isInteger(v) ? 'int' : 'float';
    default:
      return 'dict';
  }
}

/** A number that Python holds as a float (after `float()`): printed as `1.0`, not `1`. */
export class PyFloat {
  constructor(readonly value: number) {}
}

function numberRepr(n: number, float: boolean): string {
  if (Number.isNaN(n)) {
    return 'nan';
  }
  if (!Number.isFinite(n)) {
    return n > 0 ? 'inf' : '-inf';
  }
  const abs = Math.abs(n);
  if (abs !== 0 && (abs < 1e-4 || abs >= 1e16)) {
    // Python's repr switches to exponents sooner than JS and writes at least two digits: 1e-05.
    return n.toExponential().replace(/e([+-])(\d)$/, 'e$10$2');
  }
  if (Number.isInteger(n)) {
    return float ? `${n}.0` : String(n);
  }
  return String(n);
}

function strRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = '';
  for (const ch of s) {
    if (ch === '\\') {
      out += '\\\\';
    } else if (ch === quote) {
      out += `\\${ch}`;
    } else if (ch === '\n') {
      out += '\\n';
    } else if (ch === '\r') {
      out += '\\r';
    } else if (ch === '\t') {
      out += '\\t';
    } else if (ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f) {
      out += `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`;
    } else {
      out += ch;
    }
  }
  return `${quote}${out}${quote}`;
}

/** Python `repr(v)` of a JSON value. */
export function pyRepr(v: unknown): string {
  if (v === null || v === undefined) {
    return 'None';
  }
  if (v instanceof PyFloat) {
    return numberRepr(v.value, true);
  }
  if (typeof v === 'boolean') {
    return v ? 'True' : 'False';
  }
  if (typeof v === 'number') {
    return numberRepr(v, false);
  }
  if (typeof v === 'string') {
    return strRepr(v);
  }
  if (Array.isArray(v)) {
    return `[${v.map(pyRepr).join(', ')}]`;
  }
  return `{${Object.entries(v as Record<string, unknown>)
    .map(([k, x]) => `${strRepr(k)}: ${pyRepr(x)}`)
    .join(', ')}}`;
}

/** Python `str(v)`: strings as they are, everything else as its repr. */
export function pyStr(v: unknown): string {
  return typeof v === 'string' ? v : pyRepr(v);
}

/** Python `json.dumps(v, ensure_ascii=False)`: separators `", "` and `": "`. */
export function pyJsonDumps(v: unknown): string {
  if (v === null || v === undefined) {
    return 'null';
  }
  if (v instanceof PyFloat) {
    return numberRepr(v.value, true).replace(/^nan$/, 'NaN').replace(/inf$/, 'Infinity');
  }
  if (typeof v === 'number') {
    return numberRepr(v, false).replace(/^nan$/, 'NaN').replace(/inf$/, 'Infinity');
  }
  if (typeof v === 'boolean' || typeof v === 'string') {
    return JSON.stringify(v);
  }
  if (Array.isArray(v)) {
    return `[${v.map(pyJsonDumps).join(', ')}]`;
  }
  return `{${Object.entries(v as Record<string, unknown>)
    .map(([k, x]) => `${JSON.stringify(k)}: ${pyJsonDumps(x)}`)
    .join(', ')}}`;
}

function unwrap(v: unknown): unknown {
  return v instanceof PyFloat ? v.value : v;
}

/** Python `a == b` on JSON values (`True == 1`, `1 == 1.0`, deep equality of lists and dicts). */
export function pyEquals(a: unknown, b: unknown): boolean {
  a = unwrap(a);
  b = unwrap(b);
  const numeric = (x: unknown) => typeof x === 'number' || typeof x === 'boolean';
  if (numeric(a) && numeric(b)) {
    return Number(a) === Number(b);
  }
  if (a === null || a === undefined || b === null || b === undefined) {
    return (a ?? null) === (b ?? null);
  }
  if (typeof a === 'string' || typeof b === 'string') {
    return a === b;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => pyEquals(x, b[i]))
    );
  }
  if (typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return (
      ka.length === kb.length &&
      ka.every(
        (k) =>
          Object.hasOwn(b, k) &&
          pyEquals((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
      )
    );
  }
  return false;
}

/** Python's native ordering `a < b` (-1/0/1); throws for types Python cannot order. */
export function pyCompare(a: unknown, b: unknown): number {
  a = unwrap(a);
  b = unwrap(b);
  const numeric = (x: unknown) => typeof x === 'number' || typeof x === 'boolean';
  if (numeric(a) && numeric(b)) {
    return Math.sign(Number(a) - Number(b));
  }
  if (typeof a === 'string' && typeof b === 'string') {
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      if (!pyEquals(a[i], b[i])) {
        return pyCompare(a[i], b[i]);
      }
    }
    return Math.sign(a.length - b.length);
  }
  throw new Error(`'<' not supported between instances of '${pyTypeName(a)}' and '${pyTypeName(b)}'`);
}

// The characters Python's str.isspace() accepts (JavaScript's trim() differs: \x1c-\x1f, \x85, \ufeff).
const PY_SPACE =
  '\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const PY_STRIP = new RegExp(`^[${PY_SPACE}]+|[${PY_SPACE}]+$`, 'g');

/** Python `s.strip()`: leading and trailing whitespace as Python counts it. */
export function pyStrip(s: string): string {
  return s.replace(PY_STRIP, '');
}
