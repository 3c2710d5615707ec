import { applyPatch, type Operation } from 'fast-json-patch';
import {
  type CommittedDelta,
  type JsonPatchOperation,
  type RuntimeState,
  RuntimeStateSchema,
  ZERO_USAGE,
} from '@switchyard/contracts';
import { applyDelta, emptyState, openTurnPatch } from './apply-delta';
import { DeltaRejectedException } from './state.exception';

// applyDelta validates what a patch wrote where it sits, not each touched field whole. This spec
// holds it to the verdict of validating every touched field whole (what it did before), over
// thousands of random patches on a state with something in every field: same acceptance, same
// rejection code, same state.

const THREAD = '0b9a4e8c-1111-4aaa-8bbb-000000000001';
const RUN = '0b9a4e8c-2222-4aaa-8bbb-000000000010';
const T0 = '2024-05-01T10:00:00.000Z';

function delta(state: RuntimeState, patch: JsonPatchOperation[]): CommittedDelta {
  return {
    action: {
      id: state.version + 1,
      node: 'anyone',
      preparation: '',
      summary: '',
      result: null,
      usage: { ...ZERO_USAGE },
      next: [],
      started_at: T0,
      finished_at: T0,
      attempt: 1,
    },
    patch,
  };
}

const todo = (id: string) => ({ id, task: `do ${id}`, status: 'pending' });
const memory = (content: string) => ({ thread_id: THREAD, turn: 0, content, score: 0.5 });

/** A state at turn 0 with values in every field the patches below touch. */
function richState(): RuntimeState {
  const empty = emptyState(THREAD, RUN);
  const started = applyDelta(empty, delta(empty, openTurnPatch({ run_id: RUN, turn: 0, prompt: 'hi' })));
  return applyDelta(
    started,
    delta(started, [
      { op: 'add', path: '/todos/0/-', value: todo('a') },
      { op: 'add', path: '/todos/0/-', value: todo('b') },
      { op: 'add', path: '/chat_history/-', value: { role: 'assistant', content: 'hello' } },
      { op: 'add', path: '/memory/-', value: memory('m0') },
      { op: 'replace', path: '/user_context', value: { k: 1, nested: { a: [1, 2] } } },
      { op: 'add', path: '/origin_files/-', value: { name: 'f', type: 'txt' } },
      { op: 'add', path: '/output_structure/-', value: { id: 'o', expected: 'x', content: 1, type: 't' } },
      { op: 'add', path: '/graph', value: { globals: { g: 1 }, outputs: { A: { k: 'v' }, B: {} } } },
    ]),
  );
}

const PATHS = [
  '/scenario',
  '/prompts',
  '/prompts/-',
  '/prompts/0',
  '/prompts/1',
  '/prompts/7',
  '/task_goals/0',
  '/chat_history',
  '/chat_history/-',
  '/chat_history/0',
  '/chat_history/1',
  '/chat_history/0/role',
  '/chat_history/0/content',
  '/chat_history/0/extra',
  '/todos',
  '/todos/-',
  '/todos/0',
  '/todos/0/-',
  '/todos/0/0',
  '/todos/0/1',
  '/todos/0/0/status',
  '/todos/0/0/id',
  '/todos/0/0/dependencies',
  '/todos/0/0/dependencies/-',
  '/todos/0/0/priority',
  '/memory',
  '/memory/-',
  '/memory/0',
  '/memory/0/score',
  '/memory/0/run_id',
  '/user_context',
  '/user_context/k',
  '/user_context/nested/a/-',
  '/user_context/new',
  '/origin_files/-',
  '/origin_files/0',
  '/origin_files/0/mapping',
  '/origin_files/0/name',
  '/output_structure/-',
  '/output_structure/0/expected',
  '/preprocessed_files/tables',
  '/preprocessed_files/tables/t',
  '/preprocessed_files/extra',
  '/graph',
  '/graph/globals',
  '/graph/globals/g',
  '/graph/outputs/A',
  '/graph/outputs/A/k',
  '/graph/outputs/C',
  '/graph/outputs/B/x',
  '/graph/outputs/A~1B',
  '/graph/extra',
];

const VALUES: unknown[] = [
  'text',
  '',
  42,
  -1,
  0.5,
  null,
  true,
  [],
  ['a', 'b'],
  [1],
  {},
  { k: 'v' },
  { k: { deep: 1 } },
  todo('c'),
  { task: 'no id', status: 'pending' },
  { ...todo('d'), status: 'maybe' },
  [todo('e')],
  [{ id: 'x' }],
  'completed',
  'maybe',
  { role: 'user', content: 'q' },
  { role: 'robot', content: 'q' },
  'assistant',
  memory('m1'),
  { thread_id: THREAD, turn: 0, content: 'no score' },
  { name: 'g', type: 'pdf' },
  { name: '', type: 'pdf' },
  { provider: 'aws', path: '/a' },
  { provider: 'dropbox', path: '/a' },
  { id: 'p', expected: 'e', content: null, type: 't' },
  { globals: {}, outputs: {} },
  { globals: {}, outputs: { A: 'flat' } },
  { globals: {} },
  ZERO_USAGE,
];

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) {
      deepFreeze(child);
    }
  }
  return value;
}

/** A small, seeded generator (mulberry32): the same patches on every run, any failure reproducible. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomPatch(next: () => number): JsonPatchOperation[] {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)];
  return Array.from({ length: 1 + Math.floor(next() * 3) }, () => {
    const op = pick(['add', 'add', 'add', 'replace', 'replace', 'replace', 'remove', 'test'] as const);
    const path = pick(PATHS);
    return op === 'remove' ? { op, path } : { op, path, value: structuredClone(pick(VALUES)) };
  });
}

/** What validating each touched field whole says of `patch` on `state`. */
function wholeVerdict(state: RuntimeState, patch: JsonPatchOperation[]): string | RuntimeState {
  const next = structuredClone(state);
  try {
    applyPatch(next, structuredClone(patch) as Operation[], true, true, false);
  } catch {
    return 'patch_failed';
  }
  const shape = RuntimeStateSchema.shape;
  for (const op of patch) {
    const field = op.path.split('/')[1] as keyof typeof shape;
    if (!shape[field].safeParse(next[field]).success) {
      return 'invalid_state';
    }
  }
  return next;
}

describe('applyDelta: validating what a patch wrote where it sits', () => {
  it('agrees with validating every touched field whole, over 10,000 random patches', () => {
    // Frozen: a patch that changed the state it applies to would throw here.
    const base = deepFreeze(richState());
    expect(RuntimeStateSchema.safeParse(base).success).toBe(true);
    const next = random(29);
    const seen = { accepted: 0, invalid_state: 0, patch_failed: 0 };
    for (let i = 0; i < 10_000; i++) {
      const patch = randomPatch(next);
      const expected = wholeVerdict(base, patch);
      let got: string | RuntimeState;
      try {
        got = applyDelta(base, delta(base, patch));
      } catch (err) {
        if (!(err instanceof DeltaRejectedException)) {
          throw err;
        }
        got = err.code;
      }
      if (typeof expected === 'string' || typeof got === 'string') {
        expect({ patch, verdict: got }).toEqual({ patch, verdict: expected });
        seen[expected as 'invalid_state' | 'patch_failed'] += 1;
      } else {
        // Accepted both ways: the same fields (the reducer adds the action, usage and version).
        const { action_history: _a, usage: _u, version: _v, ...fields } = got;
        const { action_history: _b, usage: _w, version: _x, ...wanted } = expected;
        expect({ patch, fields }).toEqual({ patch, fields: wanted });
        seen.accepted += 1;
      }
    }
    // The patches exercise every outcome, each many times.
    expect(seen.accepted).toBeGreaterThan(500);
    expect(seen.invalid_state).toBeGreaterThan(500);
    expect(seen.patch_failed).toBeGreaterThan(500);
  });

  it('checks an append to a long history without reading the history', () => {
    let state = richState();
    const long = Array.from({ length: 2_000 }, (_, i) => ({ role: 'user', content: `m${i}` }));
    state = applyDelta(state, delta(state, [{ op: 'replace', path: '/chat_history', value: long }]));
    // An element the patch did not write is not read again: a getter on it would throw.
    Object.defineProperty(state.chat_history[5], 'content', {
      get() {
        throw new Error('an untouched message was validated');
      },
    });
    const appended = applyDelta(
      state,
      delta(state, [{ op: 'add', path: '/chat_history/-', value: { role: 'assistant', content: 'ok' } }]),
    );
    expect(appended.chat_history).toHaveLength(2_001);
    expect(() =>
      applyDelta(
        state,
        delta(state, [{ op: 'add', path: '/chat_history/-', value: { role: 'robot', content: 'no' } }]),
      ),
    ).toThrow(/"chat_history" invalid: 2000\.role/);
  });
});
