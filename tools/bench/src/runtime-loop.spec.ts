import { roundsFor } from './runtime-loop.bench';

describe(roundsFor.name, () => {
  it.each([
    [3, 0],
    [30, 9],
    [150, 49],
    [600, 199],
  ])('%d steps are %d tool rounds', (steps, rounds) => {
    expect(roundsFor(steps)).toBe(rounds);
  });

  it.each([2, 31, 100])('refuses %d steps', (steps) => {
    expect(() => roundsFor(steps)).toThrow('3 + 3k');
  });
});
