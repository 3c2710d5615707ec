import { ApiErrorCode, ApiException } from '../http/api.exception';
import { RunCreateSchema } from './langgraph.schemas';
import {
  breakpointsOf,
  checkpointIdOf,
  refuseUnsupported,
  resumeOf,
  turnInputOf,
  withLangGraphFields,
} from './run-create';

const body = (extra: Record<string, unknown>) => RunCreateSchema.parse({ assistant_id: 'agent', ...extra });

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiException);
    return (err as Error).message;
  }
  throw new Error('accepted');
}

describe('turnInputOf', () => {
  it('takes the last human message as the prompt and earlier ones as history, in either spelling', () => {
    expect(
      turnInputOf({
        messages: [
          { type: 'system', content: 'be brief' },
          { role: 'assistant', content: [{ type: 'text', text: 'hi' }] },
          { type: 'human', content: 'hello' },
        ],
      }),
    ).toEqual({
      prompt: 'hello',
      history: [
        { role: 'system', content: 'be brief' },
        { role: 'assistant', content: 'hi' },
      ],
    });
    expect(turnInputOf({ messages: 'hey', inputs: { a: 1 } })).toEqual({
      prompt: 'hey',
      history: [],
      inputs: { a: 1 },
    });
  });

  it('refuses other keys, non-text blocks, an empty list and a non-human last message by name', () => {
    expect(refusal(() => turnInputOf({ messages: [{ role: 'user', content: 'x' }], files: [] }))).toMatch(
      /^input\.files/,
    );
    expect(
      refusal(() =>
        turnInputOf({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: 'u' }] }] }),
      ),
    ).toMatch(/^input\.messages\[0\]\.content\[0\]/);
    expect(refusal(() => turnInputOf({ messages: [] }))).toMatch(/^input\.messages/);
    expect(refusal(() => turnInputOf({ messages: [{ role: 'ai', content: 'x' }] }))).toMatch(
      /^input\.messages\[0\]/,
    );
    expect(refusal(() => turnInputOf({ messages: [{ role: 'tool', content: 'x' }] }))).toMatch(/role/);
    expect(refusal(() => turnInputOf(null))).toMatch(/^input/);
  });
});

describe('refuseUnsupported', () => {
  it('accepts what is honoured (LangGraph defaults, useStream options, an empty config)', () => {
    expect(() =>
      refuseUnsupported(
        body({
          stream_mode: [],
          on_disconnect: 'cancel',
          stream_resumable: true,
          config: {},
          durability: 'sync',
        }),
      ),
    ).not.toThrow();
    expect(body({ stream_mode: [] }).stream_mode).toEqual(['values']);
    expect(body({ stream_mode: 'updates' }).stream_mode).toEqual(['updates']);
  });

  it.each([
    ['stream_subgraphs', { stream_subgraphs: true }],
    ['multitask_strategy', { multitask_strategy: 'rollback' }],
    ['on_completion', { on_completion: 'delete' }],
    ['config', { config: { configurable: { model: 'x' } } }],
    ['context', { context: { user: 'u' } }],
  ])('refuses %s with a 400 naming it', (field, extra) => {
    expect(refusal(() => refuseUnsupported(body(extra)))).toMatch(new RegExp(`^${field}`));
  });

  it('refuses a stream mode it does not produce when the body is read', () => {
    const parsed = RunCreateSchema.safeParse({ assistant_id: 'a', stream_mode: ['values', 'debug'] });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0].message).toMatch(/"debug"/);
  });
});

describe('breakpointsOf', () => {
  it.each([
    [{}, undefined],
    [{ interrupt_before: [], interrupt_after: [] }, undefined],
    [{ interrupt_before: '*' }, { before: '*' }],
    [
      { interrupt_before: ['planner'], interrupt_after: ['calculator'] },
      { before: ['planner'], after: ['calculator'] },
    ],
    [{ interrupt_before: [], interrupt_after: '*' }, { after: '*' }],
  ] as const)('%j → %j', (given, expected) => {
    expect(breakpointsOf(given as Parameters<typeof breakpointsOf>[0])).toEqual(expected);
  });

  it("renames a run's breakpoint fields as LangGraph names them", async () => {
    const err = new ApiException(ApiErrorCode.InvalidRequest, 'breakpoints.after[1]: "x" is not a node', [
      { field: 'breakpoints.after[1]', message: '"x" is not a node' },
    ]);
    const renamed = await withLangGraphFields(Promise.reject(err)).catch((e: ApiException) => e);
    expect(renamed.message).toBe('interrupt_after[1]: "x" is not a node');
    expect(renamed.details).toEqual([{ field: 'interrupt_after[1]', message: '"x" is not a node' }]);
    expect(await withLangGraphFields(Promise.resolve(3))).toBe(3);
  });
});

describe('checkpointIdOf', () => {
  it('reads the checkpoint a run starts from, in either form; refuses namespaces and a mismatch', () => {
    expect(checkpointIdOf({})).toBeUndefined();
    expect(checkpointIdOf({ checkpoint: null, checkpoint_id: '3' })).toBe('3');
    expect(checkpointIdOf({ checkpoint: { checkpoint_id: '4', checkpoint_ns: '' } })).toBe('4');
    expect(checkpointIdOf({ checkpoint: { checkpoint_id: '4' }, checkpoint_id: '4' })).toBe('4');
    expect(refusal(() => checkpointIdOf({ checkpoint: { checkpoint_id: '4', checkpoint_ns: 'x' } }))).toMatch(
      /^checkpoint\.checkpoint_ns/,
    );
    expect(refusal(() => checkpointIdOf({ checkpoint: { checkpoint_id: '4' }, checkpoint_id: '5' }))).toMatch(
      /^checkpoint_id/,
    );
    expect(refusal(() => checkpointIdOf({ checkpoint: 'x' }))).toMatch(/^checkpoint/);
  });
});

describe('resumeOf', () => {
  it('reads command.resume and refuses the other commands', () => {
    expect(resumeOf(undefined)).toBeNull();
    expect(resumeOf({ resume: { name: 'Ada' } })).toEqual({ value: { name: 'Ada' } });
    expect(refusal(() => resumeOf({ goto: 'planner' }))).toMatch(/^command\.goto/);
    expect(refusal(() => resumeOf({}))).toMatch(/^command\.resume/);
  });
});
