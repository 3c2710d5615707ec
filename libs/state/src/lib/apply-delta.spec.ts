import { applyPatch, type Operation } from 'fast-json-patch';
import {
  type Action,
  type CommittedDelta,
  type JsonPatchOperation,
  type RuntimeState,
  RuntimeStateSchema,
  type Usage,
  ZERO_USAGE,
} from '@switchyard/contracts';
import { addUsage, applyDelta, emptyState, openTurnPatch, sumUsages } from './apply-delta';
import { DeltaRejectedException, DeltaRejectionCode } from './state.exception';

const THREAD = '0b9a4e8c-1111-4aaa-8bbb-000000000001';
const RUN_0 = '0b9a4e8c-2222-4aaa-8bbb-000000000010';
const RUN_1 = '0b9a4e8c-2222-4aaa-8bbb-000000000011';
const OTHER_RUN = '0b9a4e8c-2222-4aaa-8bbb-0000000000ff';
const T0 = '2024-05-01T10:00:00.000Z';

const usage = (prompt: number, completion: number): Usage => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
});

function action(id: number, node: string, overrides: Partial<Action> = {}): Action {
  return {
    id,
    node,
    preparation: `${node} prepared`,
    summary: `${node} ran`,
    result: { by: node },
    usage: { ...ZERO_USAGE },
    next: [],
    started_at: T0,
    finished_at: T0,
    attempt: 1,
    ...overrides,
  };
}

/** The delta with which the orchestrator opens the thread's next turn. */
function startDelta(
  state: RuntimeState,
  runId: string,
  prompt: string,
  origin_files?: RuntimeState['origin_files'],
): CommittedDelta {
  const turn = state.action_history.length;
  return {
    action: action(state.version + 1, 'start', { next: ['intake'], result: { prompt } }),
    patch: openTurnPatch({ run_id: runId, turn, prompt, origin_files }),
  };
}

/** A delta of `node` on top of `state` (the action id is the next version, as the orchestrator assigns it). */
function step(
  state: RuntimeState,
  node: string,
  patch?: JsonPatchOperation[],
  overrides: Partial<Action> = {},
): CommittedDelta {
  return { action: action(state.version + 1, node, overrides), ...(patch ? { patch } : {}) };
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) {
      deepFreeze(child);
    }
  }
  return value;
}

function rejectionOf(fn: () => unknown): DeltaRejectedException {
  try {
    fn();
  } catch (err) {
    if (err instanceof DeltaRejectedException) {
      return err;
    }
    throw err;
  }
  throw new Error('expected the delta to be rejected');
}

/** Turn 0 opened, with a planner step that set a goal, a todo and spent tokens. */
function turnZeroInProgress(origin_files?: RuntimeState['origin_files']): RuntimeState {
  const empty = emptyState(THREAD, RUN_0);
  let s = applyDelta(empty, startDelta(empty, RUN_0, 'hello', origin_files));
  s = applyDelta(
    s,
    step(
      s,
      'planner',
      [
        { op: 'replace', path: '/task_goals/0', value: 'greet back' },
        { op: 'add', path: '/todos/0/-', value: { id: 't1', task: 'say hi', status: 'pending' } },
      ],
      { usage: usage(10, 5), next: ['output'] },
    ),
  );
  return s;
}

describe(emptyState.name, () => {
  it('is a valid RuntimeState at version 0 with no turn open', () => {
    const s = emptyState(THREAD, RUN_0);

    expect(RuntimeStateSchema.safeParse(s).success).toBe(true);
    expect(s).toMatchObject({ thread_id: THREAD, run_id: RUN_0, turn: 0, version: 0 });
    expect(s.action_history).toEqual([]);
    expect(s.usage).toEqual([]);
    expect(s.preprocessed_files).toEqual({ documents: {}, tables: {}, other_files: {} });
  });

  it('returns fresh objects on every call, so two threads never share a list', () => {
    const a = emptyState(THREAD, RUN_0);
    const b = emptyState(THREAD, RUN_0);

    expect(a).toEqual(b);
    expect(a.prompts).not.toBe(b.prompts);
    expect(a.preprocessed_files).not.toBe(b.preprocessed_files);
    expect(a.preprocessed_files.documents).not.toBe(b.preprocessed_files.documents);
  });
});

describe(openTurnPatch.name, () => {
  it('replaces run_id, turn and origin_files and appends to the per-turn lists', () => {
    const files = [{ name: 'a.csv', type: 'text/csv' }];

    expect(openTurnPatch({ run_id: RUN_1, turn: 3, prompt: 'go', origin_files: files })).toEqual([
      { op: 'replace', path: '/run_id', value: RUN_1 },
      { op: 'replace', path: '/turn', value: 3 },
      { op: 'add', path: '/prompts/-', value: 'go' },
      { op: 'add', path: '/task_goals/-', value: '' },
      { op: 'add', path: '/todos/-', value: [] },
      { op: 'add', path: '/chat_history/-', value: { role: 'user', content: 'go' } },
      { op: 'replace', path: '/origin_files', value: files },
    ]);
  });

  it('clears origin_files when the turn brings none', () => {
    const patch = openTurnPatch({ run_id: RUN_1, turn: 1, prompt: 'go' });

    expect(patch.find((op) => op.path === '/origin_files')).toEqual({
      op: 'replace',
      path: '/origin_files',
      value: [],
    });
  });
});

describe(sumUsages.name, () => {
  it.each<[string, Usage[], Usage]>([
    ['no usage at all', [], { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }],
    ['a single step', [usage(3, 4)], usage(3, 4)],
    ['several steps', [usage(3, 4), usage(10, 0), usage(1, 1)], usage(14, 5)],
  ])('sums %s', (_name, list, expected) => {
    expect(sumUsages(list)).toEqual(expected);
  });

  it('returns a new object and leaves the inputs and ZERO_USAGE untouched', () => {
    const list = deepFreeze([usage(1, 2)]);

    const total = sumUsages(list);
    total.prompt_tokens = 99;

    expect(list).toEqual([usage(1, 2)]);
    expect(ZERO_USAGE).toEqual({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
    expect(addUsage(usage(1, 1), usage(2, 3))).toEqual(usage(3, 4));
  });
});

describe(applyDelta.name, () => {
  describe('opening a turn with the start action', () => {
    it('opens turn 0 of a new thread', () => {
      const files = [{ name: 'report.pdf', type: 'application/pdf', local_path: '/tmp/report.pdf' }];
      const before = emptyState(THREAD, THREAD);
      const delta = startDelta(before, RUN_0, 'hello', files);

      const s = applyDelta(before, delta);

      expect(s.run_id).toBe(RUN_0);
      expect(s.turn).toBe(0);
      expect(s.version).toBe(1);
      expect(s.prompts).toEqual(['hello']);
      expect(s.task_goals).toEqual(['']);
      expect(s.todos).toEqual([[]]);
      expect(s.chat_history).toEqual([{ role: 'user', content: 'hello' }]);
      expect(s.origin_files).toEqual(files);
      expect(s.action_history).toEqual([[delta.action]]);
      expect(s.usage).toEqual([{ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }]);
      expect(RuntimeStateSchema.safeParse(s).success).toBe(true);
    });

    it('opens turn 1 on top of a finished turn 0, keeping turn 0 and appending to the per-turn lists', () => {
      let s = turnZeroInProgress([{ name: 'turn0.txt', type: 'text/plain' }]);
      expect(s.origin_files).toEqual([{ name: 'turn0.txt', type: 'text/plain' }]);
      s = applyDelta(
        s,
        step(
          s,
          'output',
          [{ op: 'add', path: '/chat_history/-', value: { role: 'assistant', content: 'hi!' } }],
          {
            usage: usage(7, 3),
          },
        ),
      );
      const turnZeroActions = s.action_history[0];
      const turnZeroUsage = s.usage[0];
      const delta = startDelta(s, RUN_1, 'again');

      const next = applyDelta(s, delta);

      expect(next.run_id).toBe(RUN_1);
      expect(next.turn).toBe(1);
      expect(next.version).toBe(s.version + 1);
      expect(next.prompts).toEqual(['hello', 'again']);
      expect(next.task_goals).toEqual(['greet back', '']);
      expect(next.todos).toEqual([[{ id: 't1', task: 'say hi', status: 'pending' }], []]);
      expect(next.chat_history).toEqual([
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: 'hi!' },
        { role: 'user', content: 'again' },
      ]);
      expect(next.origin_files).toEqual([]);
      expect(next.action_history).toHaveLength(2);
      expect(next.action_history[0]).toBe(turnZeroActions);
      expect(next.action_history[1]).toEqual([delta.action]);
      expect(next.usage).toEqual([usage(17, 8), { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }]);
      expect(next.usage[0]).toBe(turnZeroUsage);
      expect(RuntimeStateSchema.safeParse(next).success).toBe(true);
    });
  });

  describe('appending actions', () => {
    it('appends each action to action_history[turn] in order and accumulates usage[turn]', () => {
      const usages = [usage(100, 20), usage(0, 0), usage(5, 7), usage(1, 1)];
      let s = turnZeroInProgress();
      const before = s.usage[0];
      const appended: Action[] = [];

      for (const [i, u] of usages.entries()) {
        const delta = step(s, i % 2 ? 'reflection' : 'calculator', undefined, { usage: u });
        appended.push(delta.action);
        s = applyDelta(s, delta);
      }

      expect(s.action_history[0].slice(-usages.length)).toEqual(appended);
      expect(s.usage[0]).toEqual(addUsage(before, usage(106, 28)));
      expect(s.usage[0]).toEqual(sumUsages(s.action_history[0].map((a) => a.usage)));
      expect(s.usage).toHaveLength(1);
    });

    it('adds usage only to the current turn', () => {
      const t0 = turnZeroInProgress();
      const t1 = applyDelta(t0, startDelta(t0, RUN_1, 'next'));

      const s = applyDelta(t1, step(t1, 'planner', undefined, { usage: usage(40, 2) }));

      expect(s.usage).toEqual([t0.usage[0], usage(40, 2)]);
      expect(s.action_history[0]).toEqual(t0.action_history[0]);
      expect(s.action_history[1].map((a) => a.node)).toEqual(['start', 'planner']);
    });

    it('increases version by exactly one per delta, across turns', () => {
      const deltas: ((state: RuntimeState) => CommittedDelta)[] = [
        (state) => startDelta(state, RUN_0, 'a'),
        (state) => step(state, 'intake'),
        (state) => step(state, 'planner', [{ op: 'replace', path: '/scenario', value: 'chat' }]),
        (state) => step(state, 'output'),
        (state) => startDelta(state, RUN_1, 'b'),
        (state) => step(state, 'planner', [{ op: 'replace', path: '/task_goals/1', value: 'g' }]),
        (state) => step(state, 'output'),
      ];
      let s = emptyState(THREAD, RUN_0);
      const versions: number[] = [];

      for (const make of deltas) {
        s = applyDelta(s, make(s));
        versions.push(s.version);
      }

      expect(versions).toEqual([1, 2, 3, 4, 5, 6, 7]);
      expect(s.action_history.map((turn) => turn.map((a) => a.id))).toEqual([
        [1, 2, 3, 4],
        [5, 6, 7],
      ]);
    });

    it('keeps an action error as part of the appended action', () => {
      const s0 = turnZeroInProgress();
      const error = { code: 'tool_failed', message: 'division by zero' };

      const s = applyDelta(s0, step(s0, 'calculator', undefined, { error, next: ['reflection'] }));

      expect(s.action_history[0].at(-1)).toMatchObject({ node: 'calculator', error, next: ['reflection'] });
    });
  });

  describe('patching every patchable field', () => {
    const todo = { id: 't2', task: 'look it up', status: 'processing' as const, call_ids: ['call_2'] };
    const memoryItem = { thread_id: THREAD, turn: 0, content: 'earlier answer', score: 0.9 };
    const slot = { id: 'answer', expected: 'a number', content: null, type: 'number' };
    const file = {
      name: 'data.xlsx',
      type: 'application/vnd.ms-excel',
      mapping: { provider: 'aws' as const, path: 's3://b/data.xlsx' },
    };

    it.each<[keyof RuntimeState, JsonPatchOperation[], (prev: RuntimeState) => unknown]>([
      ['prompts', [{ op: 'replace', path: '/prompts/0', value: 'hello, again' }], () => ['hello, again']],
      [
        'user_context',
        [{ op: 'add', path: '/user_context/locale', value: 'de-DE' }],
        (prev) => ({ ...prev.user_context, locale: 'de-DE' }),
      ],
      ['memory', [{ op: 'add', path: '/memory/-', value: memoryItem }], () => [memoryItem]],
      ['output_style', [{ op: 'replace', path: '/output_style', value: 'markdown' }], () => 'markdown'],
      ['scenario', [{ op: 'replace', path: '/scenario', value: 'data-analysis' }], () => 'data-analysis'],
      ['output_structure', [{ op: 'add', path: '/output_structure/-', value: slot }], () => [slot]],
      ['task_goals', [{ op: 'replace', path: '/task_goals/0', value: 'new goal' }], () => ['new goal']],
      ['origin_files', [{ op: 'add', path: '/origin_files/-', value: file }], () => [file]],
      [
        'preprocessed_files',
        [{ op: 'add', path: '/preprocessed_files/tables/data.xlsx', value: { rows: 3 } }],
        () => ({ documents: {}, tables: { 'data.xlsx': { rows: 3 } }, other_files: {} }),
      ],
      [
        'todos',
        [
          { op: 'replace', path: '/todos/0/0/status', value: 'completed' },
          { op: 'add', path: '/todos/0/-', value: todo },
        ],
        () => [[{ id: 't1', task: 'say hi', status: 'completed' }, todo]],
      ],
      [
        'chat_history',
        [{ op: 'add', path: '/chat_history/-', value: { role: 'assistant', content: 'hi' } }],
        (prev) => [...prev.chat_history, { role: 'assistant', content: 'hi' }],
      ],
      ['run_id', [{ op: 'replace', path: '/run_id', value: OTHER_RUN }], () => OTHER_RUN],
      ['turn', [{ op: 'replace', path: '/turn', value: 1 }], () => 1],
    ])('applies a patch to %s', (field, patch, expected) => {
      const prev = deepFreeze(turnZeroInProgress());
      const snapshot = structuredClone(prev);

      const next = applyDelta(prev, step(prev, 'anyone', patch));

      expect(next[field]).toEqual(expected(prev));
      expect(next[field]).not.toBe(prev[field]);
      expect(RuntimeStateSchema.safeParse(next).success).toBe(true);
      expect(prev).toEqual(snapshot);
      // Every other field (but the reducer's own) is carried over as is.
      for (const other of Object.keys(prev) as (keyof RuntimeState)[]) {
        if (![field, 'version', 'action_history', 'usage'].includes(other)) {
          expect([other, next[other]]).toEqual([other, prev[other]]);
        }
      }
    });

    it('applies a test op that holds, and the rest of the patch after it', () => {
      const prev = turnZeroInProgress();

      const next = applyDelta(
        prev,
        step(prev, 'planner', [
          { op: 'test', path: '/todos/0/0/status', value: 'pending' },
          { op: 'replace', path: '/todos/0/0/status', value: 'processing' },
        ]),
      );

      expect(next.todos[0][0].status).toBe('processing');
    });

    it('applies a remove op', () => {
      const prev = turnZeroInProgress();

      const next = applyDelta(prev, step(prev, 'planner', [{ op: 'remove', path: '/todos/0/0' }]));

      expect(next.todos).toEqual([[]]);
    });

    it('applies the patch before appending, so the turn the patch selects receives the action', () => {
      const t0 = turnZeroInProgress();
      const t1 = applyDelta(t0, startDelta(t0, RUN_1, 'second'));

      // Going back to turn 0 (already open) appends there, not to turn 1.
      const s = applyDelta(
        t1,
        step(t1, 'anyone', [{ op: 'replace', path: '/turn', value: 0 }], { usage: usage(1, 0) }),
      );

      expect(s.action_history[0]).toHaveLength(t1.action_history[0].length + 1);
      expect(s.action_history[1]).toBe(t1.action_history[1]);
      expect(s.usage[0]).toEqual(addUsage(t1.usage[0], usage(1, 0)));
    });
  });

  describe('rejecting a patch that leaves a field invalid', () => {
    it.each<[string, JsonPatchOperation[], string]>([
      ['scenario = 5', [{ op: 'replace', path: '/scenario', value: 5 }], 'scenario'],
      [
        'a todo without id',
        [{ op: 'add', path: '/todos/0/-', value: { task: 'x', status: 'pending' } }],
        'todos',
      ],
      [
        'a todo with an unknown status',
        [{ op: 'replace', path: '/todos/0/0/status', value: 'maybe' }],
        'todos',
      ],
      ['todos flattened to one list', [{ op: 'replace', path: '/todos', value: [{ id: 'a' }] }], 'todos'],
      [
        'a memory item without score',
        [{ op: 'add', path: '/memory/-', value: { thread_id: THREAD, turn: 0, content: 'x' } }],
        'memory',
      ],
      [
        'a file mapped to an unknown provider',
        [
          {
            op: 'add',
            path: '/origin_files/-',
            value: { name: 'a', type: 'b', mapping: { provider: 'dropbox', path: '/a' } },
          },
        ],
        'origin_files',
      ],
      [
        'a file without a name',
        [{ op: 'add', path: '/origin_files/-', value: { type: 'b' } }],
        'origin_files',
      ],
      [
        'a chat message with an unknown role',
        [{ op: 'add', path: '/chat_history/-', value: { role: 'robot', content: 'x' } }],
        'chat_history',
      ],
      ['a run_id that is no uuid', [{ op: 'replace', path: '/run_id', value: 'run-1' }], 'run_id'],
      ['a negative turn', [{ op: 'replace', path: '/turn', value: -1 }], 'turn'],
      ['a fractional turn', [{ op: 'replace', path: '/turn', value: 0.5 }], 'turn'],
      ['user_context as a list', [{ op: 'replace', path: '/user_context', value: ['a'] }], 'user_context'],
      ['a prompt that is no string', [{ op: 'add', path: '/prompts/-', value: 42 }], 'prompts'],
      [
        'preprocessed_files without tables',
        [{ op: 'remove', path: '/preprocessed_files/tables' }],
        'preprocessed_files',
      ],
      [
        'an output slot without expected',
        [{ op: 'add', path: '/output_structure/-', value: { id: 'a', content: 1, type: 'x' } }],
        'output_structure',
      ],
    ])('rejects %s as invalid_state', (_name, patch, field) => {
      const prev = deepFreeze(turnZeroInProgress());
      const snapshot = structuredClone(prev);

      const err = rejectionOf(() => applyDelta(prev, step(prev, 'anyone', patch)));

      expect(err.code).toBe(DeltaRejectionCode.InvalidState);
      expect(err.message).toContain(`"${field}"`);
      expect(err.retryable).toBe(false);
      expect(prev).toEqual(snapshot);
    });

    it('names the offending path inside the field', () => {
      const prev = turnZeroInProgress();

      const err = rejectionOf(() =>
        applyDelta(
          prev,
          step(prev, 'planner', [{ op: 'add', path: '/todos/0/-', value: { task: 'x', status: 'pending' } }]),
        ),
      );

      expect(err.message).toMatch(/0\.1\.id/);
    });
  });

  describe('rejecting a patch that cannot be applied', () => {
    it.each<[string, JsonPatchOperation[]]>([
      ['a path naming no field', [{ op: 'replace', path: '/nope', value: 1 }]],
      ['a nested path under no field', [{ op: 'add', path: '/nope/deeper', value: 1 }]],
      ['a path that is no JSON Pointer', [{ op: 'replace', path: 'scenario', value: 'x' }]],
      ['the whole document', [{ op: 'replace', path: '', value: {} }]],
      ['a failing test op', [{ op: 'test', path: '/scenario', value: 'something else' }]],
      [
        'a failing test op after an op that applied',
        [
          { op: 'add', path: '/prompts/-', value: 'sneaky' },
          { op: 'test', path: '/task_goals/0', value: 'wrong' },
        ],
      ],
      ['removing a missing index', [{ op: 'remove', path: '/todos/0/7' }]],
      ['removing from a missing turn', [{ op: 'remove', path: '/todos/3/0' }]],
      ['replacing past the end of a list', [{ op: 'replace', path: '/prompts/5', value: 'x' }]],
      ['adding under a missing key', [{ op: 'add', path: '/preprocessed_files/nope/a', value: 1 }]],
    ])('rejects %s as patch_failed', (_name, patch) => {
      const prev = deepFreeze(turnZeroInProgress());
      const snapshot = structuredClone(prev);

      const err = rejectionOf(() => applyDelta(prev, step(prev, 'anyone', patch)));

      expect(err.code).toBe(DeltaRejectionCode.PatchFailed);
      expect(err).toBeInstanceOf(DeltaRejectedException);
      expect(prev).toEqual(snapshot);
    });

    it('names the path that names no field', () => {
      const prev = turnZeroInProgress();

      const err = rejectionOf(() =>
        applyDelta(prev, step(prev, 'anyone', [{ op: 'replace', path: '/nope', value: 1 }])),
      );

      expect(err.message).toContain('/nope');
    });

    it.each(['/constructor', '/toString', '/hasOwnProperty', '/__proto__'])(
      'rejects the Object.prototype member %s as patch_failed',
      (path) => {
        const prev = turnZeroInProgress();

        const err = rejectionOf(() =>
          applyDelta(prev, step(prev, 'anyone', [{ op: 'replace', path, value: 1 }])),
        );

        expect(err.code).toBe(DeltaRejectionCode.PatchFailed);
      },
    );
  });

  describe('rejecting a delta for a turn that is not open', () => {
    it('refuses an action on a thread whose first turn was never opened', () => {
      const err = rejectionOf(() =>
        applyDelta(emptyState(THREAD, RUN_0), step(emptyState(THREAD, RUN_0), 'planner')),
      );

      expect(err.code).toBe(DeltaRejectionCode.TurnMismatch);
      expect(err.message).toContain('turn 0');
    });

    it.each([2, 5])('refuses a patch that moves turn to %i, beyond the next turn', (turn) => {
      const prev = turnZeroInProgress();

      const err = rejectionOf(() =>
        applyDelta(prev, step(prev, 'anyone', [{ op: 'replace', path: '/turn', value: turn }])),
      );

      expect(err.code).toBe(DeltaRejectionCode.TurnMismatch);
      expect(err.message).toContain(`turn ${turn}`);
    });

    it('refuses a state whose turn points past the recorded turns', () => {
      const prev = { ...turnZeroInProgress(), turn: 3 };

      expect(rejectionOf(() => applyDelta(prev, step(prev, 'planner'))).code).toBe(
        DeltaRejectionCode.TurnMismatch,
      );
    });

    it('does not open a turn when action_history and usage disagree', () => {
      const t0 = turnZeroInProgress();
      const prev = { ...t0, turn: 1, usage: [t0.usage[0], usage(0, 0)] };

      expect(rejectionOf(() => applyDelta(prev, step(prev, 'planner'))).code).toBe(
        DeltaRejectionCode.TurnMismatch,
      );
    });
  });

  describe('purity and structural sharing', () => {
    it('does not mutate a deep-frozen input state', () => {
      const prev = deepFreeze(turnZeroInProgress());
      const snapshot = structuredClone(prev);
      const delta = deepFreeze(
        step(
          prev,
          'planner',
          [
            { op: 'replace', path: '/todos/0/0/status', value: 'completed' },
            { op: 'add', path: '/preprocessed_files/documents/a', value: { pages: 1 } },
            { op: 'replace', path: '/scenario', value: 's' },
            { op: 'add', path: '/user_context/k', value: 'v' },
          ],
          { usage: usage(3, 3) },
        ),
      );
      const deltaSnapshot = structuredClone(delta);

      const next = applyDelta(prev, delta);

      expect(prev).toEqual(snapshot);
      expect(delta).toEqual(deltaSnapshot);
      expect(next.todos[0][0].status).toBe('completed');
      expect(next.version).toBe(prev.version + 1);
    });

    it('copies the element an op reaches after an earlier op shifted the list', () => {
      // Not frozen: the previous state must stay as it was by the reducer's own doing.
      let prev = turnZeroInProgress();
      prev = applyDelta(
        prev,
        step(prev, 'planner', [
          { op: 'add', path: '/todos/0/-', value: { id: 't2', task: 'b', status: 'pending' } },
        ]),
      );
      const snapshot = structuredClone(prev);

      // /todos/0/0 is t2 once t1 is removed: t2 is prev's own object until copied.
      const next = applyDelta(
        prev,
        step(prev, 'planner', [
          { op: 'remove', path: '/todos/0/0' },
          { op: 'replace', path: '/todos/0/0/status', value: 'completed' },
        ]),
      );
      expect(next.todos[0].map((t) => [t.id, t.status])).toEqual([['t2', 'completed']]);
      expect(prev).toEqual(snapshot);

      // Nor when the patch is then rejected: the state it was applied to is left as it was.
      expect(() =>
        applyDelta(
          prev,
          step(prev, 'planner', [
            { op: 'remove', path: '/todos/0/0' },
            { op: 'replace', path: '/todos/0/0/status', value: 'completed' },
            { op: 'test', path: '/scenario', value: 'not this' },
          ]),
        ),
      ).toThrow(DeltaRejectedException);
      expect(prev).toEqual(snapshot);
    });

    it('does not mutate a deep-frozen input when opening a turn', () => {
      const prev = deepFreeze(turnZeroInProgress());
      const snapshot = structuredClone(prev);

      const next = applyDelta(prev, startDelta(prev, RUN_1, 'again'));

      expect(prev).toEqual(snapshot);
      expect(next.action_history).toHaveLength(2);
    });

    it.each<keyof RuntimeState>([
      'prompts',
      'user_context',
      'memory',
      'output_structure',
      'task_goals',
      'origin_files',
      'preprocessed_files',
      'todos',
      'chat_history',
    ])('shares the untouched field %s with the previous state', (field) => {
      const prev = turnZeroInProgress();

      const next = applyDelta(prev, step(prev, 'calculator', undefined, { usage: usage(1, 1) }));

      expect(next[field]).toBe(prev[field]);
    });

    it('copies only the patched field: preprocessed_files changes, todos is shared', () => {
      const prev = turnZeroInProgress();

      const next = applyDelta(
        prev,
        step(prev, 'calculator', [{ op: 'add', path: '/preprocessed_files/documents/a.pdf', value: 'text' }]),
      );

      expect(next.preprocessed_files).not.toBe(prev.preprocessed_files);
      expect(next.preprocessed_files.documents).toEqual({ 'a.pdf': 'text' });
      expect(prev.preprocessed_files.documents).toEqual({});
      expect(next.todos).toBe(prev.todos);
      expect(next.prompts).toBe(prev.prompts);
      expect(next.chat_history).toBe(prev.chat_history);
    });

    it('copies only the containers on the patched path: the rest of the field is shared', () => {
      const t0 = turnZeroInProgress();
      const prev = applyDelta(
        t0,
        step(t0, 'planner', [
          { op: 'add', path: '/preprocessed_files/documents/a.pdf', value: { pages: [1, 2] } },
          { op: 'add', path: '/preprocessed_files/tables/t', value: { rows: 3 } },
        ]),
      );
      deepFreeze(prev);
      const snapshot = structuredClone(prev);

      const next = applyDelta(
        prev,
        step(prev, 'planner', [
          { op: 'add', path: '/preprocessed_files/documents/a.pdf/pages/-', value: 3 },
          { op: 'replace', path: '/preprocessed_files/documents/a.pdf/pages/0', value: 0 },
        ]),
      );

      expect(prev).toEqual(snapshot);
      expect(next.preprocessed_files.documents['a.pdf']).toEqual({ pages: [0, 2, 3] });
      // Copied once per delta along the path, however many ops walk it; the siblings are shared.
      expect(next.preprocessed_files).not.toBe(prev.preprocessed_files);
      expect(next.preprocessed_files.documents).not.toBe(prev.preprocessed_files.documents);
      expect(next.preprocessed_files.tables).toBe(prev.preprocessed_files.tables);
      expect(next.preprocessed_files.other_files).toBe(prev.preprocessed_files.other_files);
    });

    it('shares the earlier turns of action_history and usage, copying only the current turn', () => {
      const t0 = turnZeroInProgress();
      const prev = applyDelta(t0, startDelta(t0, RUN_1, 'again'));

      const next = applyDelta(prev, step(prev, 'planner', undefined, { usage: usage(2, 2) }));

      expect(next.action_history).not.toBe(prev.action_history);
      expect(next.action_history[0]).toBe(prev.action_history[0]);
      expect(next.action_history[1]).not.toBe(prev.action_history[1]);
      expect(next.action_history[1][0]).toBe(prev.action_history[1][0]);
      expect(next.usage[0]).toBe(prev.usage[0]);
      expect(prev.action_history[1]).toHaveLength(1);
    });

    it('returns a state that the same delta folds to deterministically', () => {
      const prev = deepFreeze(turnZeroInProgress());
      const delta = step(prev, 'planner', [{ op: 'replace', path: '/output_style', value: 'terse' }]);

      expect(applyDelta(prev, delta)).toEqual(applyDelta(prev, delta));
    });
  });
});

describe('applyDelta refuses ops that read from elsewhere', () => {
  it.each(['move', 'copy'])('rejects a %s op without touching the input state', (op) => {
    const prev = emptyState('00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002');
    const opened = applyDelta(prev, {
      action: {
        id: 1,
        node: 'start',
        preparation: '',
        summary: '',
        result: null,
        usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
        next: [],
        started_at: '2026-01-01T00:00:00.000Z',
        finished_at: '2026-01-01T00:00:00.000Z',
        attempt: 1,
      },
      patch: openTurnPatch({ run_id: prev.run_id, turn: 0, prompt: 'p' }),
    });
    const before = structuredClone(opened);
    const bad = { op, from: '/prompts/0', path: '/scenario' } as unknown as JsonPatchOperation;
    expect(() =>
      applyDelta(opened, { action: { ...opened.action_history[0][0], id: 2 }, patch: [bad] }),
    ).toThrow(expect.objectContaining({ code: DeltaRejectionCode.PatchFailed }));
    expect(opened).toEqual(before);
  });
});

// applyDelta validates what a patch wrote where it sits, not each touched field whole. These specs
// hold it to the verdict of validating every touched field whole (what it did before), over
// thousands of random patches on a state with something in every field: same acceptance, same
// rejection code, same state.

const todo = (id: string) => ({ id, task: `do ${id}`, status: 'pending' });
const memory = (content: string) => ({ thread_id: THREAD, turn: 0, content, score: 0.5 });

/** A state at turn 0 with values in every field the patches below touch. */
function richState(): RuntimeState {
  const empty = emptyState(THREAD, RUN_0);
  const started = applyDelta(empty, startDelta(empty, RUN_0, 'hi'));
  return applyDelta(
    started,
    step(started, 'anyone', [
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
        got = applyDelta(base, step(base, 'anyone', patch));
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
    state = applyDelta(state, step(state, 'anyone', [{ op: 'replace', path: '/chat_history', value: long }]));
    // An element the patch did not write is not read again: a getter on it would throw.
    Object.defineProperty(state.chat_history[5], 'content', {
      get() {
        throw new Error('an untouched message was validated');
      },
    });
    const appended = applyDelta(
      state,
      step(state, 'anyone', [
        { op: 'add', path: '/chat_history/-', value: { role: 'assistant', content: 'ok' } },
      ]),
    );
    expect(appended.chat_history).toHaveLength(2_001);
    expect(() =>
      applyDelta(
        state,
        step(state, 'anyone', [
          { op: 'add', path: '/chat_history/-', value: { role: 'robot', content: 'no' } },
        ]),
      ),
    ).toThrow(/"chat_history" invalid: 2000\.role/);
  });
});
