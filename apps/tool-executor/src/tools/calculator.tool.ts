import { type RunErrorCodes } from '@switchyard/contracts';
import { z } from 'zod';

const MAX_EXPRESSION_LENGTH = 1000;
// Parentheses, function calls, unary signs and exponents each add a level of recursion.
const MAX_DEPTH = 100;

export const calculatorInputSchema = z
  .object({
    expression: z
      .string()
      .min(1)
      .max(MAX_EXPRESSION_LENGTH)
      .describe('Arithmetic expression, e.g. "2 * (3 + 4) ^ 2" or "sqrt(2) * max(1, pi)".'),
  })
  .strict();
export type CalculatorInput = z.infer<typeof calculatorInputSchema>;

const { $schema: _schemaDialect, ...calculatorInputJsonSchema } = z.toJSONSchema(calculatorInputSchema, {
  io: 'input',
});

export const calculatorTool = {
  name: 'calculator',
  description:
    'Evaluates an arithmetic expression and returns the number. Supports + - * / % ^ (or **), parentheses, ' +
    'the constants pi and e, and the functions sqrt, abs, round, floor, ceil, min, max, log (natural), log10, ' +
    'exp, sin, cos, tan (radians).',
  inputJsonSchema: calculatorInputJsonSchema,
  idempotent: true,
};

export type CalculatorErrorCode = RunErrorCodes<'syntax_error' | 'math_error'>;

/** An expression that cannot be evaluated. Not retryable: the same expression fails the same way. */
export class CalculatorError extends Error {
  readonly retryable = false;
  constructor(
    readonly code: CalculatorErrorCode,
    message: string,
    /** 1-based position in the expression, when the error has one. */
    readonly position?: number,
  ) {
    super(message);
    this.name = 'CalculatorError';
  }
}

type TokenKind = 'number' | 'identifier' | 'operator' | '(' | ')' | ',' | 'end';

interface Token {
  kind: TokenKind;
  text: string;
  /** 0-based offset into the expression. */
  offset: number;
  value?: number;
}

const CONSTANTS: ReadonlyMap<string, number> = new Map([
  ['pi', Math.PI],
  ['e', Math.E],
]);

interface MathFunction {
  // Inclusive bounds on the argument count.
  minArgs: number;
  maxArgs: number;
  apply: (args: number[]) => number;
}

const unary = (fn: (x: number) => number): MathFunction => ({
  minArgs: 1,
  maxArgs: 1,
  apply: ([x]) => fn(x),
});

// A Map, not an object literal, so names like `constructor` or `__proto__` are never found.
const FUNCTIONS: ReadonlyMap<string, MathFunction> = new Map([
  ['sqrt', unary(Math.sqrt)],
  ['abs', unary(Math.abs)],
  ['round', unary(Math.round)],
  ['floor', unary(Math.floor)],
  ['ceil', unary(Math.ceil)],
  ['log', unary(Math.log)],
  ['log10', unary(Math.log10)],
  ['exp', unary(Math.exp)],
  ['sin', unary(Math.sin)],
  ['cos', unary(Math.cos)],
  ['tan', unary(Math.tan)],
  ['min', { minArgs: 1, maxArgs: Infinity, apply: (args) => Math.min(...args) }],
  ['max', { minArgs: 1, maxArgs: Infinity, apply: (args) => Math.max(...args) }],
]);

const NUMBER_RE = /(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/y;
const IDENTIFIER_RE = /[A-Za-z_][A-Za-z0-9_]*/y;
const OPERATORS = ['**', '+', '-', '*', '/', '%', '^'];

function at(offset: number): string {
  return `at position ${offset + 1}`;
}

function describeToken(token: Token): string {
  return token.kind === 'end' ? 'end of expression' : `token '${token.text}' ${at(token.offset)}`;
}

function tokenize(expression: string): Token[] {
  const tokens: Token[] = [];
  let offset = 0;
  while (offset < expression.length) {
    const char = expression[offset];
    if (/\s/.test(char)) {
      offset++;
      continue;
    }
    if (/[\d.]/.test(char)) {
      NUMBER_RE.lastIndex = offset;
      const match = NUMBER_RE.exec(expression);
      if (!match) {
        throw new CalculatorError('syntax_error', `malformed number ${at(offset)}`, offset + 1);
      }
      // `1e` or `2e+` would otherwise lex as a number followed by the constant e.
      if (/^[eE](?:[+-]|$|[^A-Za-z0-9_])/.test(expression.slice(offset + match[0].length))) {
        throw new CalculatorError('syntax_error', `malformed number ${at(offset)}`, offset + 1);
      }
      const value = Number(match[0]);
      if (!Number.isFinite(value)) {
        throw new CalculatorError(
          'math_error',
          `number '${match[0]}' ${at(offset)} is too large`,
          offset + 1,
        );
      }
      tokens.push({ kind: 'number', text: match[0], offset, value });
      offset += match[0].length;
      continue;
    }
    IDENTIFIER_RE.lastIndex = offset;
    const identifier = IDENTIFIER_RE.exec(expression);
    if (identifier) {
      tokens.push({ kind: 'identifier', text: identifier[0], offset });
      offset += identifier[0].length;
      continue;
    }
    const operator = OPERATORS.find((op) => expression.startsWith(op, offset));
    if (operator) {
      tokens.push({ kind: 'operator', text: operator, offset });
      offset += operator.length;
      continue;
    }
    if (char === '(' || char === ')' || char === ',') {
      tokens.push({ kind: char, text: char, offset });
      offset++;
      continue;
    }
    throw new CalculatorError('syntax_error', `unexpected character '${char}' ${at(offset)}`, offset + 1);
  }
  tokens.push({ kind: 'end', text: '', offset: expression.length });
  return tokens;
}

/** Recursive descent over the grammar (lowest precedence first):
 *    expression := term (('+' | '-') term)*
 *    term       := unary (('*' | '/' | '%') unary)*
 *    unary      := ('+' | '-') unary | power
 *    power      := primary (('^' | '**') unary)?      right-associative; binds tighter than unary minus
 *    primary    := number | constant | function '(' expression (',' expression)* ')' | '(' expression ')'
 */
class Parser {
  private index = 0;
  private depth = 0;

  constructor(private readonly tokens: Token[]) {}

  parse(): number {
    if (this.peek().kind === 'end') {
      throw new CalculatorError('syntax_error', 'empty expression', 1);
    }
    const value = this.parseExpression();
    const next = this.peek();
    if (next.kind !== 'end') {
      this.unexpected(next);
    }
    return value;
  }

  private parseExpression(): number {
    let value = this.parseTerm();
    for (let token = this.peek(); token.text === '+' || token.text === '-'; token = this.peek()) {
      this.index++;
      const right = this.parseTerm();
      value = checked(token.text === '+' ? value + right : value - right, token);
    }
    return value;
  }

  private parseTerm(): number {
    let value = this.parseUnary();
    for (let token = this.peek(); ['*', '/', '%'].includes(token.text); token = this.peek()) {
      this.index++;
      const right = this.parseUnary();
      if (right === 0 && token.text !== '*') {
        const what = token.text === '/' ? 'division' : 'modulo';
        throw new CalculatorError('math_error', `${what} by zero ${at(token.offset)}`, token.offset + 1);
      }
      value = checked(
        token.text === '*' ? value * right : token.text === '/' ? value / right : value % right,
        token,
      );
    }
    return value;
  }

  private parseUnary(): number {
    const token = this.peek();
    if (token.text === '-' || token.text === '+') {
      this.index++;
      const operand = this.nested(token, () => this.parseUnary());
      return token.text === '-' ? -operand : operand;
    }
    return this.parsePower();
  }

  private parsePower(): number {
    const base = this.parsePrimary();
    const token = this.peek();
    if (token.text !== '^' && token.text !== '**') {
      return base;
    }
    this.index++;
    // The exponent is a unary so `2^-1` works; recursing into it makes `^` right-associative.
    const exponent = this.nested(token, () => this.parseUnary());
    return checked(base ** exponent, token);
  }

  private parsePrimary(): number {
    const token = this.next();
    switch (token.kind) {
      case 'number':
        return token.value as number;
      case '(': {
        const value = this.nested(token, () => this.parseExpression());
        this.expect(')', token);
        return value;
      }
      case 'identifier':
        return this.parseIdentifier(token);
      default:
        return this.unexpected(token);
    }
  }

  private parseIdentifier(token: Token): number {
    const name = token.text.toLowerCase();
    const isCall = this.peek().kind === '(';
    const constant = CONSTANTS.get(name);
    const fn = FUNCTIONS.get(name);
    if (constant !== undefined) {
      if (isCall) {
        throw syntax(`'${token.text}' ${at(token.offset)} is a constant, not a function`, token);
      }
      return constant;
    }
    if (!fn) {
      throw syntax(
        `unknown ${isCall ? 'function' : 'identifier'} '${token.text}' ${at(token.offset)}`,
        token,
      );
    }
    if (!isCall) {
      throw syntax(`function '${token.text}' ${at(token.offset)} must be called with parentheses`, token);
    }

    const open = this.next();
    const args = this.nested(token, () => {
      const values: number[] = [];
      if (this.peek().kind === ')') {
        return values;
      }
      values.push(this.parseExpression());
      while (this.peek().kind === ',') {
        this.index++;
        values.push(this.parseExpression());
      }
      return values;
    });
    this.expect(')', open);
    if (args.length < fn.minArgs || args.length > fn.maxArgs) {
      const expected =
        fn.maxArgs === Infinity
          ? `at least ${fn.minArgs} argument${fn.minArgs === 1 ? '' : 's'}`
          : `${fn.minArgs} argument${fn.minArgs === 1 ? '' : 's'}`;
      throw syntax(
        `function '${token.text}' ${at(token.offset)} takes ${expected}, got ${args.length}`,
        token,
      );
    }
    return checked(fn.apply(args), token, `${name}(${args.join(', ')})`);
  }

  private nested<T>(token: Token, parse: () => T): T {
    if (++this.depth > MAX_DEPTH) {
      throw syntax(
        `expression is nested too deeply (more than ${MAX_DEPTH} levels) ${at(token.offset)}`,
        token,
      );
    }
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }

  private expect(kind: TokenKind, opener: Token): void {
    const token = this.peek();
    if (token.kind === kind) {
      this.index++;
      return;
    }
    if (token.kind === 'end') {
      throw syntax(`unclosed '${opener.text}' ${at(opener.offset)}`, opener);
    }
    throw syntax(`expected '${kind}' but found ${describeToken(token)}`, token);
  }

  private unexpected(token: Token): never {
    throw syntax(`unexpected ${describeToken(token)}`, token);
  }

  private peek(): Token {
    return this.tokens[this.index];
  }

  private next(): Token {
    const token = this.tokens[this.index];
    // The 'end' token stays put so a parser that overruns keeps seeing it.
    if (token.kind !== 'end') {
      this.index++;
    }
    return token;
  }
}

function syntax(message: string, token: Token): CalculatorError {
  return new CalculatorError('syntax_error', message, token.offset + 1);
}

// Overflow (10^400), domain errors (sqrt(-1), log(0)) and the like all surface as non-finite numbers.
function checked(value: number, token: Token, what = `'${token.text}'`): number {
  if (Number.isFinite(value)) {
    return value;
  }
  const reason = Number.isNaN(value) ? 'is not a real number' : 'is out of range';
  throw new CalculatorError(
    'math_error',
    `result of ${what} ${at(token.offset)} ${reason}`,
    token.offset + 1,
  );
}

/** Evaluates an arithmetic expression without eval: tokenizes, then parses and computes in one pass. */
export function evaluateExpression(expression: string): number {
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    throw new CalculatorError(
      'syntax_error',
      `expression is longer than ${MAX_EXPRESSION_LENGTH} characters`,
    );
  }
  const result = new Parser(tokenize(expression)).parse();
  // -0 is an artefact of floating point (`-0 * 5`), not something a caller wants to see.
  return result === 0 ? 0 : result;
}
