import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COLLATED_OUTPUTS, iterationItemStep } from './iteration';
import { parseCanvas } from './normalize-dsl';
import { getVariableValue, type VariableScope } from './variable-ref';

const canvas = parseCanvas(
  JSON.parse(readFileSync(join(__dirname, '../../fixtures/ragflow/all.json'), 'utf8')),
);
const ITEM = 'IterationItem:IterStart';
const scope = (outputs: Record<string, Record<string, unknown>>): VariableScope => ({
  canvas,
  globals: {},
  outputs,
});
const split = { 'StringTransform:SplitCSV': { result: ['a', 'b', 'c'] } };

describe(iterationItemStep.name, () => {
  it.each([
    [0, {}, { item: 'a', index: 0, [COLLATED_OUTPUTS]: { lines: [] } }, false],
    [
      1,
      { [ITEM]: { [COLLATED_OUTPUTS]: { lines: [] } }, 'StringTransform:FmtItem': { result: '0: a' } },
      { item: 'b', index: 1, [COLLATED_OUTPUTS]: { lines: ['0: a'] } },
      false,
    ],
    [
      3,
      {
        [ITEM]: { [COLLATED_OUTPUTS]: { lines: ['0: a', '1: b'] } },
        'StringTransform:FmtItem': { result: '2: c' },
      },
      { [COLLATED_OUTPUTS]: { lines: ['0: a', '1: b', '2: c'] } },
      true,
    ],
    // A new run starts over whatever an earlier run left.
    [
      0,
      { [ITEM]: { [COLLATED_OUTPUTS]: { lines: ['old'] } } },
      { item: 'a', index: 0, [COLLATED_OUTPUTS]: { lines: [] } },
      false,
    ],
  ])('visit %d', (visit, outputs, expected, ended) => {
    expect(iterationItemStep(scope({ ...split, ...outputs }), ITEM, visit)).toEqual({
      outputs: expected,
      ended,
    });
  });

  it('refuses an items_ref that is not a list', () => {
    expect(() =>
      iterationItemStep(scope({ 'StringTransform:SplitCSV': { result: 'a,b' } }), ITEM, 0),
    ).toThrow('not a list');
  });

  it.each([
    [{ [ITEM]: { [COLLATED_OUTPUTS]: { lines: ['0: a'] } } }, ['0: a']],
    [{ 'Iteration:IterateList': { lines: ['own'] } }, ['own']],
    [{}, null],
  ])("reads the Iteration's collated outputs from its item (%j)", (outputs, lines) => {
    expect(getVariableValue(scope(outputs), 'Iteration:IterateList@lines')).toEqual(lines);
  });
});
