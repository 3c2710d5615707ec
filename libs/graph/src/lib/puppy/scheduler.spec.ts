import {
  allSettled,
  answerBlocks,
  blockViews,
  edgeStatus,
  entryRecord,
  failedEdges,
  promptBlocks,
  recordOf,
  startEdges,
  storedRecord,
  successorEdges,
} from './scheduler';
import { type PuppyWorkflow, PuppyWorkflowSchema } from './workflow.schema';

const text = (label: string, content: unknown = '') => ({ label, type: 'text', data: { content } });
const edge = (type: string, inputs: Record<string, string>, outputs: Record<string, string>) => ({
  type,
  data: { inputs, outputs },
});
// a → e1 → b ; (a, b) → e2 → c ; a → e3 → d (ifelse) ; d → e4 → f
const wf: PuppyWorkflow = PuppyWorkflowSchema.parse({
  blocks: { a: text('A', 'x'), b: text('B'), c: text('C'), d: text('D'), f: text('F') },
  edges: {
    e1: edge('llm', { a: 'A' }, { b: 'B' }),
    e2: edge('llm', { a: 'A', b: 'B' }, { c: 'C' }),
    e3: edge('ifelse', { a: 'A' }, { d: 'D' }),
    e4: edge('modify', { d: 'D' }, { f: 'F' }),
  },
});

describe(edgeStatus.name, () => {
  const status = (outputs: Record<string, unknown>) =>
    Object.fromEntries(
      Object.keys(wf.edges).map((id) => [id, edgeStatus(wf, id, blockViews(wf, outputs), outputs)]),
    );

  it.each([
    ['before the entry everything waits', {}, { e1: 'waiting', e2: 'waiting', e3: 'waiting', e4: 'waiting' }],
    [
      'after the entry the edges reading only given blocks are ready',
      { begin: { blocks: { a: 'x' } } },
      { e1: 'ready', e2: 'waiting', e3: 'ready', e4: 'waiting' },
    ],
    [
      'an edge is ready once all its inputs are processed',
      { begin: { blocks: { a: 'x' } }, e1: { blocks: { b: 'y' } } },
      { e1: 'settled', e2: 'ready', e3: 'ready', e4: 'waiting' },
    ],
    [
      'an ifelse that wrote nothing makes its readers skip',
      { begin: { blocks: { a: 'x' } }, e3: { blocks: {} } },
      { e1: 'ready', e2: 'waiting', e3: 'settled', e4: 'skip' },
    ],
    [
      'a skipped edge settles and skips its readers in turn',
      { begin: { blocks: { a: 'x' } }, e1: { blocks: {}, skipped: true } },
      { e1: 'settled', e2: 'skip', e3: 'ready', e4: 'waiting' },
    ],
  ])('%s', (_name, outputs, expected) => {
    expect(status(outputs)).toEqual(expected);
  });

  it('reads block contents from their writer', () => {
    const views = blockViews(wf, {
      begin: { blocks: { a: 'x' } },
      e1: { blocks: { b: 'y' } },
      e3: { blocks: {} },
    });
    expect(views['b']).toEqual({ state: 'processed', content: 'y' });
    expect(views['d']).toEqual({ state: 'skipped', content: '' });
    expect(views['c']).toEqual({ state: 'pending', content: '' });
  });
});

describe(storedRecord.name, () => {
  it('keeps the blocks as JSON text, so their key order survives jsonb', () => {
    const stored = storedRecord({ blocks: { b: { question: 'q', answer: 'a' } } });
    expect(stored).toEqual({ blocks_json: '{"b":{"question":"q","answer":"a"}}' });
    expect(Object.keys(recordOf(stored)!.blocks['b'] as object)).toEqual(['question', 'answer']);
    expect(recordOf(storedRecord({ blocks: {}, skipped: true }))).toEqual({ blocks: {}, skipped: true });
    expect(recordOf(storedRecord({ blocks: {}, failed: 'boom' }))).toEqual({ blocks: {}, failed: 'boom' });
    expect(blockViews(wf, { begin: storedRecord({ blocks: { a: 'x' } }) })['a']).toEqual({
      state: 'processed',
      content: 'x',
    });
  });
});

describe(failedEdges.name, () => {
  it('lists the edges that failed; their readers skip', () => {
    const outputs = { begin: { blocks: { a: 'x' } }, e1: storedRecord({ blocks: {}, failed: 'no model' }) };
    expect(failedEdges(wf, outputs)).toEqual([['e1', 'no model']]);
    expect(edgeStatus(wf, 'e2', blockViews(wf, outputs), outputs)).toBe('skip');
  });
});

describe(successorEdges.name, () => {
  it.each([
    ['e1', ['e2']],
    ['e2', []],
    ['e3', ['e4']],
  ])('%s → %j', (id, expected) => {
    expect(successorEdges(wf, id)).toEqual(expected);
  });
});

describe(startEdges.name, () => {
  it('is the first batch, in the workflow’s order', () => {
    expect(startEdges(wf, { begin: { blocks: { a: 'x' } } })).toEqual(['e1', 'e3']);
  });

  it('knows when every edge has settled', () => {
    const done = { begin: { blocks: {} }, e1: { blocks: {} }, e2: { blocks: {} }, e3: { blocks: {} } };
    expect(allSettled(wf, done)).toBe(false);
    expect(allSettled(wf, { ...done, e4: { blocks: {}, skipped: true } })).toBe(true);
  });
});

describe(answerBlocks.name, () => {
  it('is the blocks no edge reads', () => {
    expect(answerBlocks(wf)).toEqual(['c', 'f']);
  });

  it('is the blocks marked isOutput when there are some', () => {
    const marked = PuppyWorkflowSchema.parse({
      ...wf,
      blocks: { ...wf.blocks, b: { ...wf.blocks['b'], isOutput: true } },
    });
    expect(answerBlocks(marked)).toEqual(['b']);
  });
});

describe(entryRecord.name, () => {
  it('holds the blocks no edge writes, with inputs by id or label', () => {
    expect(entryRecord(wf, { inputs: { A: 'from label' } })).toEqual({ blocks: { a: 'from label' } });
    expect(entryRecord(wf, { inputs: { a: ['x'] } })).toEqual({ blocks: { a: ['x'] } });
  });

  it('lets the prompt fill the single text block no edge writes', () => {
    expect(promptBlocks(wf)).toEqual(['a']);
    expect(entryRecord(wf, { prompt: 'hi' })).toEqual({ blocks: { a: 'hi' } });
    expect(entryRecord(wf, { prompt: 'hi', inputs: { a: 'given' } })).toEqual({ blocks: { a: 'given' } });
  });

  it.each([
    ['an unknown block', { nope: 1 }, 'the workflow has no block with this id or label'],
    ['a block an edge writes', { b: 1 }, 'edge e1 writes this block'],
  ])('refuses inputs for %s', (_name, inputs, message) => {
    expect(() => entryRecord(wf, { inputs })).toThrow(message);
  });

  it('refuses to start when a block an edge reads has no content', () => {
    const empty = PuppyWorkflowSchema.parse({ ...wf, blocks: { ...wf.blocks, a: text('A', null) } });
    expect(() => entryRecord(empty, {})).toThrow('block a: an edge reads this block but it has no content');
  });
});
