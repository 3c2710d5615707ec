import { PyFloat, pyEquals, pyFloat, pyJsonDumps, pyRepr, pyTruthy } from './py-value';

describe(pyRepr.name, () => {
  it.each([
    [['a', 'b'], "['a', 'b']"],
    [{ k: 'v', n: null, t: true }, "{'k': 'v', 'n': None, 't': True}"],
    ["it's", '"it\'s"'],
    [new PyFloat(1), '1.0'],
    [2.5, '2.5'],
    [1e-5, '1e-05'],
    [1e16, '1e+16'],
  ])('%j → %s', (v, out) => expect(pyRepr(v)).toBe(out));
});

describe(pyJsonDumps.name, () => {
  it.each([
    [['a', 'b'], '["a", "b"]'],
    [{ 名: [1, { x: null }] }, '{"名": [1, {"x": null}]}'],
    ['line\n"q"', '"line\\n\\"q\\""'],
  ])('%j → %s', (v, out) => expect(pyJsonDumps(v)).toBe(out));
});

describe(pyFloat.name, () => {
  it.each([
    ['1', 1],
    [' 2.5 ', 2.5],
    ['1e3', 1000],
    ['1_000', 1000],
    [true, 1],
    ['-inf', -Infinity],
  ])('%j → %d', (v, out) => expect(pyFloat(v)).toBe(out));

  it.each([[''], ['abc'], ['true'], [null], [[1]]])('%j raises', (v) => expect(() => pyFloat(v)).toThrow());
});

describe('truthiness and equality', () => {
  it.each([
    [0, false],
    ['0', true],
    [[], false],
    [{ a: 1 }, true],
  ])('pyTruthy(%j) = %s', (v, t) => expect(pyTruthy(v)).toBe(t));

  it.each([
    [true, 1, true],
    [new PyFloat(1), 1, true],
    [{ a: [1] }, { a: [1] }, true],
    ['1', 1, false],
    [null, '', false],
  ])('%j == %j is %s', (a, b, eq) => expect(pyEquals(a, b)).toBe(eq));
});
