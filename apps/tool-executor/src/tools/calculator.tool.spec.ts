import { z } from 'zod';
import {
  CalculatorError,
  calculatorInputSchema,
  calculatorTool,
  evaluateExpression,
  type CalculatorErrorCode,
} from './calculator.tool';

function errorOf(expression: string): CalculatorError {
  try {
    evaluateExpression(expression);
  } catch (error) {
    if (error instanceof CalculatorError) {
      return error;
    }
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(expression)} to fail`);
}

describe(evaluateExpression.name, () => {
  it.each([
    ['42', 42],
    ['3.25', 3.25],
    ['.5', 0.5],
    ['5.', 5],
    ['1e3', 1000],
    ['2.5E-2', 0.025],
    ['1e+2', 100],
    ['2+3*4', 14],
    ['(2+3)*4', 20],
    ['10 - 4 - 3', 3],
    ['100 / 10 / 5', 2],
    ['7 % 3', 1],
    ['-7 % 3', -1],
    ['2 * 3 % 4', 2],
    ['2^10', 1024],
    ['2**10', 1024],
    ['2^3^2', 512],
    ['2**3**2', 512],
    ['-2^2', -4],
    ['(-2)^2', 4],
    ['2^-1', 0.5],
    ['-3', -3],
    ['+3', 3],
    ['--3', 3],
    ['-+-3', 3],
    ['3 - -3', 6],
    ['2 * -3', -6],
    ['-(2 + 3)', -5],
    [' \t1 +\n 2 ', 3],
    ['((((1))))', 1],
    ['pi', Math.PI],
    ['e', Math.E],
    ['PI * 2', Math.PI * 2],
    ['sqrt(16)', 4],
    ['abs(-2.5)', 2.5],
    ['round(2.5)', 3],
    ['round(-2.5)', -2],
    ['floor(-1.5)', -2],
    ['ceil(1.2)', 2],
    ['min(3, 1, 2)', 1],
    ['max(3, 1 + 9, 2)', 10],
    ['max(7)', 7],
    ['log(e)', 1],
    ['log10(1000)', 3],
    ['exp(0)', 1],
    ['sin(0)', 0],
    ['cos(0)', 1],
    ['tan(0)', 0],
    ['sqrt(3^2 + 4^2)', 5],
    ['2 * sqrt(max(4, 9)) - -1', 7],
    ['-0 * 5', 0],
    ['0^0', 1],
  ])('%j = %p', (expression, expected) => {
    expect(evaluateExpression(expression)).toBeCloseTo(expected, 12);
  });

  it('never returns negative zero', () => {
    expect(Object.is(evaluateExpression('-0 * 5'), 0)).toBe(true);
  });

  it.each<[string, CalculatorErrorCode, string]>([
    ['(1+)', 'syntax_error', "unexpected token ')' at position 4"],
    ['', 'syntax_error', 'empty expression'],
    ['   ', 'syntax_error', 'empty expression'],
    ['1 +', 'syntax_error', 'unexpected end of expression'],
    ['1 2', 'syntax_error', "unexpected token '2' at position 3"],
    ['2(3)', 'syntax_error', "unexpected token '(' at position 2"],
    ['(1 + 2', 'syntax_error', "unclosed '(' at position 1"],
    ['1 + 2)', 'syntax_error', "unexpected token ')' at position 6"],
    ['()', 'syntax_error', "unexpected token ')' at position 2"],
    ['1 ** * 2', 'syntax_error', "unexpected token '*' at position 6"],
    ['1 $ 2', 'syntax_error', "unexpected character '$' at position 3"],
    ['.', 'syntax_error', 'malformed number at position 1'],
    ['1e', 'syntax_error', 'malformed number at position 1'],
    ['2e+', 'syntax_error', 'malformed number at position 1'],
    ['1.2.3', 'syntax_error', "unexpected token '.3' at position 4"],
    ['foo + 1', 'syntax_error', "unknown identifier 'foo' at position 1"],
    ['1 + bar(2)', 'syntax_error', "unknown function 'bar' at position 5"],
    ['constructor(1)', 'syntax_error', "unknown function 'constructor' at position 1"],
    ['__proto__', 'syntax_error', "unknown identifier '__proto__' at position 1"],
    ['pi(2)', 'syntax_error', "'pi' at position 1 is a constant, not a function"],
    ['sqrt 4', 'syntax_error', "function 'sqrt' at position 1 must be called with parentheses"],
    ['sqrt(1, 2)', 'syntax_error', "function 'sqrt' at position 1 takes 1 argument, got 2"],
    ['min()', 'syntax_error', "function 'min' at position 1 takes at least 1 argument, got 0"],
    ['max(1,)', 'syntax_error', "unexpected token ')' at position 7"],
    ['sqrt(4 5)', 'syntax_error', "expected ')' but found token '5' at position 8"],
    ['1 / 0', 'math_error', 'division by zero at position 3'],
    ['1 / (2 - 2)', 'math_error', 'division by zero at position 3'],
    ['5 % 0', 'math_error', 'modulo by zero at position 3'],
    ['sqrt(-1)', 'math_error', 'result of sqrt(-1) at position 1 is not a real number'],
    ['log(0)', 'math_error', 'result of log(0) at position 1 is out of range'],
    ['10^400', 'math_error', "result of '^' at position 3 is out of range"],
    ['(-8)^(1/3)', 'math_error', "result of '^' at position 5 is not a real number"],
    ['exp(1000)', 'math_error', 'result of exp(1000) at position 1 is out of range'],
    ['1e400', 'math_error', "number '1e400' at position 1 is too large"],
  ])('rejects %p with %s: %s', (expression, code, message) => {
    const error = errorOf(expression);
    expect(error).toMatchObject({ name: 'CalculatorError', code, retryable: false });
    expect(error.message).toContain(message);
  });

  it('reports the 1-based position on the error', () => {
    expect(errorOf('1 + )').position).toBe(5);
  });

  it.each([
    ['parentheses', (n: number) => '('.repeat(n) + '1' + ')'.repeat(n)],
    ['unary signs', (n: number) => '-'.repeat(n) + '1'],
    ['function calls', (n: number) => 'abs('.repeat(n) + '1' + ')'.repeat(n)],
    [
      'exponents',
      (n: number) =>
        Array(n + 1)
          .fill('1')
          .join('^'),
    ],
  ])('allows 100 levels of nested %s but not 101', (_kind, build) => {
    expect(() => evaluateExpression(build(100))).not.toThrow();
    expect(errorOf(build(101))).toMatchObject({
      code: 'syntax_error',
      message: expect.stringContaining('nested too deeply'),
    });
  });

  it('refuses expressions longer than 1000 characters', () => {
    const long = '1+'.repeat(500) + '1';
    expect(errorOf(long)).toMatchObject({
      code: 'syntax_error',
      message: expect.stringContaining('longer than 1000'),
    });
  });

  it('evaluates a 1000-character expression', () => {
    expect(evaluateExpression('1+'.repeat(499) + '1 ')).toBe(500);
  });
});

describe('calculatorInputSchema', () => {
  it.each([
    [{ expression: '1+1' }, true],
    [{ expression: '' }, false],
    [{ expression: 'x'.repeat(1001) }, false],
    [{}, false],
    [{ expression: 1 }, false],
    [{ expression: '1', extra: true }, false],
  ])('%j → valid: %p', (input, valid) => {
    expect(calculatorInputSchema.safeParse(input).success).toBe(valid);
  });
});

describe('calculatorTool', () => {
  it('describes its input as JSON Schema', () => {
    expect(calculatorTool).toMatchObject({ name: 'calculator', idempotent: true });
    expect(calculatorTool.inputJsonSchema).toEqual({
      type: 'object',
      properties: {
        expression: { type: 'string', minLength: 1, maxLength: 1000, description: expect.any(String) },
      },
      required: ['expression'],
      additionalProperties: false,
    });
    // Same schema the zod validator enforces, minus the dialect marker LLM APIs do not want.
    const { $schema, ...fromZod } = z.toJSONSchema(calculatorInputSchema, { io: 'input' });
    expect($schema).toBeDefined();
    expect(calculatorTool.inputJsonSchema).toEqual(fromZod);
  });
});
