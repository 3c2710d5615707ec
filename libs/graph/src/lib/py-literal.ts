// Python's `ast.literal_eval` over the literals a canvas value can hold: numbers, strings,
// True/False/None, lists, tuples (as lists), dicts and sets (as lists). Anything else throws.

class Reader {
  i = 0;
  constructor(private readonly s: string) {}

  fail(what: string): never {
    throw new SyntaxError(`${what} at position ${this.i} of ${JSON.stringify(this.s)}`);
  }

  ws(): void {
    while (this.i < this.s.length && /\s/.test(this.s[this.i])) {
      this.i++;
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
    if (ch === '[' || ch === '(') {
      return this.sequence(ch === '[' ? ']' : ')');
    }
    if (ch === '{') {
      return this.dictOrSet();
    }
    if (ch === '"' || ch === "'") {
      let out = this.string();
      // Adjacent string literals concatenate, as in Python.
      while (this.peek() === '"' || this.peek() === "'") {
        out += this.string();
      }
      return out;
    }
    const word = /^(True|False|None)\b/.exec(this.s.slice(this.i));
    if (word) {
      this.i += word[0].length;
      return word[0] === 'True' ? true : word[0] === 'False' ? false : null;
    }
    const num = /^[-+]?(\d[\d_]*\.?[\d_]*|\.\d[\d_]*)([eE][-+]?\d+)?/.exec(this.s.slice(this.i));
    if (num) {
      this.i += num[0].length;
      return Number(num[0].replace(/_/g, ''));
    }
    return this.fail('malformed node or string');
  }

  sequence(close: string): unknown {
    this.i++;
    const out: unknown[] = [];
    let comma = false;
    while (!this.eat(close)) {
      out.push(this.value());
      comma = this.eat(',');
      if (!comma && this.peek() !== close) {
        this.fail(`expected "," or "${close}"`);
      }
    }
    // `(x)` is x itself; only `(x,)` is a tuple.
    return close === ')' && out.length === 1 && !comma ? out[0] : out;
  }

  dictOrSet(): unknown {
    this.i++;
    if (this.eat('}')) {
      return {};
    }
    const first = this.value();
    if (!this.eat(':')) {
      const items = [first];
      while (this.eat(',') && this.peek() !== '}') {
        items.push(this.value());
      }
      if (!this.eat('}')) {
        this.fail('expected "}"');
      }
      return items;
    }
    const out: Record<string, unknown> = {};
    let key = first;
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
      key = this.value();
      if (!this.eat(':')) {
        this.fail('expected ":"');
      }
    }
  }

  string(): string {
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
      if (ch !== '\\') {
        out += ch;
        continue;
      }
      const esc = this.s[this.i++];
      const simple: Record<string, string> = {
        n: '\n',
        t: '\t',
        r: '\r',
        '\\': '\\',
        "'": "'",
        '"': '"',
        '0': '\0',
      };
      if (esc in simple) {
        out += simple[esc];
      } else if (esc === 'x' || esc === 'u') {
        const len = esc === 'x' ? 2 : 4;
        out += String.fromCharCode(parseInt(this.s.slice(this.i, this.i + len), 16));
        this.i += len;
      } else if (esc === '\n') {
        // A backslash-newline continues the line.
      } else {
        out += `\\${esc}`;
      }
    }
  }
}

/** `ast.literal_eval(text)`; throws a SyntaxError for anything that is not one literal. */
export function pyLiteralEval(text: string): unknown {
  const reader = new Reader(text);
  const value = reader.value();
  if (reader.peek() !== '') {
    reader.fail('unexpected text after the literal');
  }
  return value;
}
