import { evaluate } from './calculator';

describe(evaluate.name, () => {
  it.each([
    ['1+1', 2],
    ['2+3*4', 14],
    ['(2+3)*4', 20],
    ['-2^2', -4],
    ['2^3^2', 512],
    ['10 / 4', 2.5],
    ['7 % 3', 1],
    ['.5 + 1.', 1.5],
  ])('%j = %p', (expression, expected) => {
    expect(evaluate(expression)).toBe(expected);
  });

  it.each(['', '1+', '(1', '1 1', 'x'])('rejects %j', (expression) => {
    expect(() => evaluate(expression)).toThrow(/calculator/);
  });
});
