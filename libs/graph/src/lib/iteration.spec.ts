import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COLLATED_OUTPUTS, iterationItemStep, withIterationAliases } from './iteration';
import { parseCanvas } from './normalize-dsl';
import { getVariableValue, renderTemplate, type VariableScope } from './variable-ref';

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

describe(withIterationAliases.name, () => {
  const body = (params: Record<string, unknown>, parentId = 'Iteration:IterateList') =>
    withIterationAliases(canvas, { ...canvas.components['StringTransform:FmtItem'], params, parentId });

  it('makes bare {item}, {index} and {result} in the body references to the IterationItem', () => {
    const params = body({
      script: '{index}={item} ({result})',
      nested: [{ content: 'at {index}' }],
      n: 3,
    }).params;

    expect(params).toEqual({
      script: `{${ITEM}@index}={${ITEM}@item} ({${ITEM}@result})`,
      nested: [{ content: `at {${ITEM}@index}` }],
      n: 3,
    });
    // Rendered as RAGFlow renders them: the item's outputs; `result`, never produced, is empty.
    const s = scope({ [ITEM]: { item: 'b', index: 1 } });
    expect(renderTemplate(s, params['script'] as string, String, false)).toBe('1=b ()');
  });

  it('leaves other text, another case and components outside an Iteration alone', () => {
    expect(body({ script: '{ITEM} {items} {sys.query} item' }).params['script']).toBe(
      '{ITEM} {items} {sys.query} item',
    );
    const outside = body({ script: '{item}' }, 'Loop:InputUntil1');
    expect(outside.params['script']).toBe('{item}');
  });
});
