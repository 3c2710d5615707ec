import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isSkipped, startOf, successorsOf } from './canvas-next';
import { parseCanvas } from './normalize-dsl';

const FIXTURES = join(__dirname, '../../fixtures/ragflow');
const load = (name: string) => parseCanvas(JSON.parse(readFileSync(join(FIXTURES, name), 'utf8')));
const all = load('all.json');
const sw = load('switch.json');

describe(successorsOf.name, () => {
  it.each([
    ['begin', {}, ['UserFillUp:Menu']],
    ['UserFillUp:Menu', {}, ['Switch:Route']],
    ['Switch:Route', { next: ['Message:Only'] }, ['Message:Only']],
    ['Switch:Route', {}, []],
    ['Categorize:Demo', { next: ['Message:CateOther'] }, ['Message:CateOther']],
    ['Message:Only', {}, []],
  ])('%s %j → %j (downstream, or _next for Switch/Categorize)', (id, outcome, next) => {
    expect(successorsOf(all, id, outcome)).toEqual(next);
  });

  it.each([
    ['Iteration:IterateList', {}, ['IterationItem:IterStart']],
    ['IterationItem:IterStart', {}, ['StringTransform:FmtItem']],
    ['IterationItem:IterStart', { ended: true }, ['Message:IterDone']],
    ['StringTransform:FmtItem', {}, ['IterationItem:IterStart']],
    ['Loop:InputUntil1', {}, ['LoopItem:InputUntil1Start']],
    ['LoopItem:InputUntil1Start', { ended: true }, ['Message:LoopDone']],
    ['ExitLoop:LoopExit', {}, ['Message:LoopDone']],
    ['Message:LoopContinue', {}, ['LoopItem:InputUntil1Start']],
  ])('%s %j → %j (iteration and loop bodies)', (id, outcome, next) => {
    expect(successorsOf(all, id, outcome)).toEqual(next);
  });

  it.each([
    ['begin', ['Switch:EmptySquidsJudge']],
    ['Message:HappyLandsFly', []],
    ['No:Such', []],
  ])('graph-only %s → %j', (id, next) => expect(successorsOf(sw, id)).toEqual(next));

  it.each([
    ['Iteration:IterateList', 'IterationItem:IterStart'],
    ['Loop:InputUntil1', 'LoopItem:InputUntil1Start'],
    ['Message:Only', undefined],
  ])('startOf(%s) = %s', (id, start) => expect(startOf(all, id)).toBe(start));
});

describe(isSkipped.name, () => {
  it.each([
    ['Message:CateOther', ['begin'], false, true],
    ['Message:CateOther', ['begin', 'Categorize:Demo'], false, false],
    ['Message:CateOther', ['begin'], true, false],
    ['Message:HappyLandsFly', [], false, false],
    ['UserFillUp:CodeInput', [], false, false],
    ['Message:AggDone', ['VariableAggregator:PickOne'], false, false],
    ['Message:CodeDone', ['UserFillUp:CodeInput'], false, true],
  ])('%s after %j (resumed %s) → %s', (id, ran, resumed, skipped) => {
    expect(isSkipped(id.startsWith('Message:Happy') ? sw : all, id, ran, resumed)).toBe(skipped);
  });
});
