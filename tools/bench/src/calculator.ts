/**
 * The LangGraph side's calculator: + - * / % ^, parentheses and unary signs over decimal numbers.
 * (Switchyard's calculator lives in apps/tool-executor, which a tool may not import.)
 */
export function evaluate(expression: string): number {
  const tokens = expression.match(/\d+(?:\.\d*)?|\.\d+|\*\*|[-+*/%^()]|\S/g) ?? [];
  let pos = 0;
  const peek = (): string | undefined => tokens[pos];
  const take = (): string | undefined => tokens[pos++];

  const primary = (): number => {
    const t = take();
    if (t === '(') {
      const v = sum();
      if (take() !== ')') {
        throw new Error(`calculator: ")" expected in ${JSON.stringify(expression)}`);
      }
      return v;
    }
    if (t === '-') {
      return -power();
    }
    if (t === '+') {
      return power();
    }
    if (t !== undefined && /^[\d.]/.test(t)) {
      return Number(t);
    }
    throw new Error(`calculator: unexpected ${t === undefined ? 'end' : JSON.stringify(t)}`);
  };
  const power = (): number => {
    const base = primary();
    if (peek() === '^' || peek() === '**') {
      take();
      return base ** power();
    }
    return base;
  };
  const product = (): number => {
    let v = power();
    for (let op = peek(); op === '*' || op === '/' || op === '%'; op = peek()) {
      take();
      const r = power();
      v = op === '*' ? v * r : op === '/' ? v / r : v % r;
    }
    return v;
  };
  const sum = (): number => {
    let v = product();
    for (let op = peek(); op === '+' || op === '-'; op = peek()) {
      take();
      const r = product();
      v = op === '+' ? v + r : v - r;
    }
    return v;
  };

  const value = sum();
  if (pos !== tokens.length) {
    throw new Error(`calculator: unexpected ${JSON.stringify(tokens[pos])}`);
  }
  return value;
}
