import { graphNodeName } from '@switchyard/contracts';
import { GraphErrorCode, GraphException } from '../graph.exception';
import { PUPPY_END_NODE, purePuppyEdge, runPuppyEdgeStep } from './edge-step';
import { entryRecord, storedRecord } from './scheduler';
import { type PuppyWorkflow, PuppyWorkflowSchema } from './workflow.schema';

const text = (label: string, content: unknown = '') => ({ label, type: 'text', data: { content } });
const edge = (type: string, inputs: Record<string, string>, outputs: Record<string, string>) => ({
  type,
  data: { inputs, outputs },
});
// a → e1 (llm) → b ; b → e2 (modify) → c ; a → e3 (search) → d
const wf: PuppyWorkflow = PuppyWorkflowSchema.parse({
  blocks: { a: text('A', 'x'), b: text('B'), c: text('C'), d: text('D') },
  edges: {
    e1: edge('llm', { a: 'A' }, { b: 'B' }),
    e2: edge('modify', { b: 'B' }, { c: 'C' }),
    e3: edge('search', { a: 'A' }, { d: 'D' }),
  },
});
const opened = { begin: storedRecord(entryRecord(wf, { prompt: '' })) };

describe(purePuppyEdge.name, () => {
  it('is true of ifelse and modify edges only: not of a model call, a search, or no edge', () => {
    const ifelse = PuppyWorkflowSchema.parse({
      blocks: { a: text('A') },
      edges: { i: { type: 'ifelse', data: { inputs: { a: 'A' }, outputs: {}, cases: {} } } },
    });
    expect(purePuppyEdge(ifelse, 'i')).toBe(true);
    expect(purePuppyEdge(wf, 'e2')).toBe(true);
    expect(purePuppyEdge(wf, 'e1')).toBe(false);
    expect(purePuppyEdge(wf, 'e3')).toBe(false);
    expect(purePuppyEdge(wf, 'end')).toBe(false);
  });
});

describe(runPuppyEdgeStep.name, () => {
  it('runs a ready edge, records what it wrote and names its readers', async () => {
    const step = await runPuppyEdgeStep(
      wf,
      opened,
      'e1',
      () => Promise.resolve({ blocks: { b: 'y' }, summary: 'llm e1: 1 call' }),
      false,
    );
    expect(step.answer).toMatchObject({
      summary: 'llm e1: 1 call',
      result: { edge: 'e1', status: 'ran', written: ['b'] },
      next: [graphNodeName('e2')],
      patch: [{ op: 'add', path: '/graph/outputs/e1', value: storedRecord({ blocks: { b: 'y' } }) }],
    });
    expect(step.successors).toEqual([graphNodeName('e2')]);
  });

  it('does nothing for an edge that still waits for a block', async () => {
    const run = jest.fn();
    const step = await runPuppyEdgeStep(wf, opened, 'e2', run, false);
    expect(step).toEqual({
      answer: { summary: 'e2: waiting', result: { edge: 'e2', status: 'waiting' }, next: [] },
      successors: [],
    });
    expect(run).not.toHaveBeenCalled();
  });

  it('settles a failing edge as failed and names graph.end, which fails the run', async () => {
    const step = await runPuppyEdgeStep(
      wf,
      opened,
      'e1',
      () => Promise.reject(new GraphException(GraphErrorCode.ComponentFailed, 'no such key')),
      false,
    );
    expect(step.answer).toMatchObject({
      result: { edge: 'e1', status: 'failed', written: [] },
      next: [PUPPY_END_NODE],
      error: { code: 'component_failed', message: 'edge e1: no such key' },
    });
    expect(step.successors).toEqual([PUPPY_END_NODE]);
  });

  it('rethrows a retryable failure unless it is the last delivery', async () => {
    const busy = Object.assign(new Error('rate limited'), { retryable: true });
    await expect(runPuppyEdgeStep(wf, opened, 'e1', () => Promise.reject(busy), false)).rejects.toBe(busy);
    const last = await runPuppyEdgeStep(wf, opened, 'e1', () => Promise.reject(busy), true);
    expect(last.answer.error).toEqual({ code: 'component_failed', message: 'edge e1: rate limited' });
  });
});
