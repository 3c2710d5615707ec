import { subjectMatches } from './subject-match';

describe('subjectMatches', () => {
  it.each([
    // exact
    ['sy.run.start', 'sy.run.start', true],
    ['sy.run.start', 'sy.run.cancel', false],
    ['sy', 'sy', true],
    // length mismatch without wildcards
    ['sy.run', 'sy.run.start', false],
    ['sy.run.start', 'sy.run', false],
    ['sy.run.start', 'sy.run.start.x', false],
    // `*`: exactly one token
    ['sy.delta.*', 'sy.delta.planner', true],
    ['sy.delta.*', 'sy.delta', false],
    ['sy.delta.*', 'sy.delta.planner.extra', false],
    ['sy.*.start', 'sy.run.start', true],
    ['sy.*.start', 'sy.run.cancel', false],
    ['*', 'sy', true],
    ['*', 'sy.run', false],
    ['*.*', 'sy.run', true],
    ['sy.delta.*', 'xx.delta.planner', false],
    // `>`: one or more trailing tokens
    ['sy.>', 'sy.run', true],
    ['sy.>', 'sy.run.start.now', true],
    ['sy.>', 'sy', false],
    ['>', 'sy', true],
    ['>', 'sy.run.start', true],
    ['sy.*.>', 'sy.run.start', true],
    ['sy.*.>', 'sy.run', false],
    ['sy.run.>', 'sy.task.start', false],
    ['sy.>', 'xx.run', false],
  ])('%s matches %s → %s', (pattern, subject, expected) => {
    expect(subjectMatches(pattern, subject)).toBe(expected);
  });
});
