// Python's `ast.literal_eval` over the literals a canvas value can hold: numbers, strings,
// True/False/None, lists, tuples (as lists), dicts and sets (as lists). Anything else throws, as
// does a value JSON cannot hold (bytes, complex numbers, a tuple as a dict key). Differential-
// tested against CPython's (py-literal.spec.ts), which lists where it deliberately differs.

// A decimal integer (no leading zeros but in 0 itself), a float, or a hex/octal/binary integer;
// `_` only between digits.
const DIGITS = String.raw`\d(?:_?\d)*`;
const NUMBER = new RegExp(
  String.raw`^(?:0[xX](?:_?[0-9a-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+|` +
    String.raw`(?:${DIGITS}\.(?:${DIGITS})?|\.${DIGITS}|${DIGITS})(?:[eE][-+]?${DIGITS})?)(?![\w.])`,
);
const DECIMAL_INT = /^\d(?:_?\d)*$/;

class Reader {
  i = 0;
  /** Whether the value just read is hashable in Python: only such a value may be a dict key or a set member. */
  hashable = true;
  constructor(private readonly s: string) {}

  fail(what: string): never {
    throw new SyntaxError(`${what} at position ${this.i} of ${JSON.stringify(this.s)}`);
  }

  ws(): void {
    while (this.i < this.s.length) {
      if (this.s[this.i] === '#') {
        // A comment, to the end of its line.
        while (this.i < this.s.length && this.s[this.i] !== '\n') {
          this.i++;
        }
      } else if (/\s/.test(this.s[this.i])) {
        this.i++;
      } else {
        return;
      }
    }
  }

  peek(): string {
    this.ws();
    return this.s[this.i] ?? '';
  }

  eat(ch: string): boolean {
    if (this.peek() === ch) {
      this.i++;
      return true;
    }
    return false;
  }

  value(): unknown {
    const ch = this.peek();
    this.hashable = true;
    if (ch === '[' || ch === '(') {
      return this.sequence(ch === '[' ? ']' : ')');
    }
    if (ch === '{') {
      const out = this.dictOrSet();
      this.hashable = false;
      return out;
    }
    if (this.stringAhead()) {
      let out = this.string();
      // Adjacent string literals concatenate, as in Python.
      while (this.stringAhead()) {
        out += this.string();
      }
      return out;
    }
    const word = /^(True|False|None)\b/.exec(this.s.slice(this.i));
    if (word) {
      this.i += word[0].length;
      return word[0] === 'True' ? true : word[0] === 'False' ? false : null;
    }
    // A sign may stand apart from its number (`- 1`), as a unary operator.
    const sign = /^[-+][ \t]*/.exec(this.s.slice(this.i));
    const at = this.i + (sign?.[0].length ?? 0);
    const num = NUMBER.exec(this.s.slice(at));
    if (num) {
      const text = num[0].replace(/_/g, '');
      if (DECIMAL_INT.test(text) && /^0+[1-9]/.test(text)) {
        this.fail('leading zeros in a decimal integer');
      }
      this.i = at + num[0].length;
      const n = Number(text);
      return sign?.[0][0] === '-' ? -n : n;
    }
    return this.fail('malformed node or string');
  }

  /** A string literal starts here: a quote, after a `u` or `r` prefix (any case) or none. */
  stringAhead(): boolean {
    this.ws();
    return /^[uUrR]?['"]/.test(this.s.slice(this.i, this.i + 2));
  }

  sequence(close: string): unknown {
    this.i++;
    const out: unknown[] = [];
    let comma = false;
    // A tuple is hashable when its items are; a list never.
    let hashable = close === ')';
    while (!this.eat(close)) {
      out.push(this.value());
      hashable &&= this.hashable;
      comma = this.eat(',');
      if (!comma && this.peek() !== close) {
        this.fail(`expected "," or "${close}"`);
      }
    }
    // `(x)` is x itself; only `(x,)` is a tuple.
    this.hashable = hashable;
    return close === ')' && out.length === 1 && !comma ? out[0] : out;
  }

  /** A set member: hashable. */
  member(): unknown {
    const v = this.value();
    if (!this.hashable) {
      this.fail('unhashable set member');
    }
    return v;
  }

  /** A dict key: hashable, and one JSON can key by (not a tuple). */
  key(first?: { v: unknown }): unknown {
    const v = first ? first.v : this.value();
    if (v !== null && typeof v === 'object') {
      this.fail('a dict key that is not a string, number, True, False or None');
    }
    return v;
  }

  dictOrSet(): unknown {
    this.i++;
    if (this.eat('}')) {
      return {};
    }
    const first = this.member();
    if (!this.eat(':')) {
      const items = [first];
      while (this.eat(',') && this.peek() !== '}') {
        items.push(this.member());
      }
      if (!this.eat('}')) {
        this.fail('expected "}"');
      }
      return items;
    }
    const out: Record<string, unknown> = {};
    let key = this.key({ v: first });
    for (;;) {
      out[String(key)] = this.value();
      if (this.eat('}')) {
        return out;
      }
      if (!this.eat(',')) {
        this.fail('expected "," or "}"');
      }
      if (this.eat('}')) {
        return out;
      }
      key = this.key();
      if (!this.eat(':')) {
        this.fail('expected ":"');
      }
    }
  }

  string(): string {
    let raw = false;
    if (/[uUrR]/.test(this.s[this.i])) {
      raw = /[rR]/.test(this.s[this.i]);
      this.i++;
    }
    const quote = this.s[this.i];
    const triple = this.s.startsWith(quote.repeat(3), this.i);
    this.i += triple ? 3 : 1;
    let out = '';
    for (;;) {
      if (this.i >= this.s.length) {
        this.fail('unterminated string');
      }
      if (triple ? this.s.startsWith(quote.repeat(3), this.i) : this.s[this.i] === quote) {
        this.i += triple ? 3 : 1;
        return out;
      }
      const ch = this.s[this.i++];
      if (ch === '\n' && !triple) {
        this.fail('unterminated string');
      }
      if (ch !== '\\') {
        out += ch;
        continue;
      }
      if (raw) {
        // A raw string keeps its backslashes; one still keeps the next character in the string.
        out += ch + (this.s[this.i] ?? '');
        this.i++;
        continue;
      }
      out += this.escape(this.s[this.i++]);
    }
  }

  /** What the escape `\<esc>` (read up to `esc`) stands for; reads the rest of it. */
  escape(esc: string | undefined): string {
    const simple: Record<string, string> = {
      n: '\n',
      t: '\t',
      r: '\r',
      a: '\x07',
      b: '\b',
      f: '\f',
      v: '\v',
      '\\': '\\',
      "'": "'",
      '"': '"',
      // A backslash-newline continues the line.
      '\n': '',
    };
    if (esc === undefined) {
      return this.fail('unterminated string');
    }
    if (Object.hasOwn(simple, esc)) {
      return simple[esc];
    }
    if (/[0-7]/.test(esc)) {
      // Up to three octal digits.
      const octal = /^[0-7]{0,2}/.exec(this.s.slice(this.i))![0];
      this.i += octal.length;
      return String.fromCodePoint(parseInt(esc + octal, 8));
    }
    const hexLength: Record<string, number> = { x: 2, u: 4, U: 8 };
    if (Object.hasOwn(hexLength, esc)) {
      const hex = this.s.slice(this.i, this.i + hexLength[esc]);
      if (!new RegExp(`^[0-9a-fA-F]{${hexLength[esc]}}$`).test(hex)) {
        this.fail(`truncated \\${esc} escape`);
      }
      const code = parseInt(hex, 16);
      if (code > 0x10ffff) {
        this.fail(`illegal Unicode character in a \\${esc} escape`);
      }
      this.i += hex.length;
      return String.fromCodePoint(code);
    }
    if (esc === 'N') {
      // Python looks the name up in the Unicode database, which is not at hand here.
      return this.fail('named Unicode escapes (\\N{...}) are not supported');
    }
    // Python keeps an unknown escape as it is written.
    return `\\${esc}`;
  }
}

/** `ast.literal_eval(text)`; throws a SyntaxError for anything that is not one literal. */
export function pyLiteralEval(text: string): unknown {
  const reader = new Reader(text);
  if (text.includes('\0')) {
    reader.fail('a null byte in the source');
  }
  const value = reader.value();
  if (reader.peek() !== '') {
    reader.fail('unexpected text after the literal');
  }
  return value;
}
