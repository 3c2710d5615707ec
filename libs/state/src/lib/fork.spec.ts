import type { CommittedDelta, RuntimeState } from '@switchyard/contracts';
import { applyDelta, emptyState, openTurnPatch } from './apply-delta';
import { forkDelta, rewindPatch } from './fork';
import { DeltaRejectedException } from './state.exception';

const T = '00000000-0000-4000-8000-000000000001';
const R1 = '00000000-0000-4000-8000-0000000000a1';
const R2 = '00000000-0000-4000-8000-0000000000a2';

const action = (id: number, node: string, next: string[] = []) => ({
  id,
  node,
  preparation: '',
  summary: node,
  result: null,
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  next,
  started_at: '2026-01-01T00:00:00.000Z',
  finished_at: '2026-01-01T00:00:00.000Z',
  attempt: 1,
});

function thread(): RuntimeState[] {
  const states = [emptyState(T, R1)];
  const deltas: CommittedDelta[] = [
    { action: action(1, 'start', ['intake']), patch: openTurnPatch({ run_id: R1, turn: 0, prompt: 'p' }) },
    { action: action(2, 'intake', ['planner']), patch: [{ op: 'replace', path: '/scenario', value: 'A' }] },
    { action: action(3, 'planner', ['output']), patch: [{ op: 'replace', path: '/scenario', value: 'B' }] },
    {
      action: action(4, 'output'),
      patch: [{ op: 'add', path: '/chat_history/-', value: { role: 'assistant', content: 'answer' } }],
    },
  ];
  for (const d of deltas) {
    states.push(applyDelta(states[states.length - 1], d));
  }
  return states;
}

describe(forkDelta.name, () => {
  it('takes the thread back to the earlier version, edits it, and appends the fork action', () => {
    const s = thread();
    const { delta, state } = forkDelta({
      head: s[4],
      at: s[2],
      runId: R2,
      edits: [{ op: 'replace', path: '/user_context', value: { name: 'Ada' } }],
      next: ['planner'],
    });
    expect(state.version).toBe(5);
    expect(state.run_id).toBe(R2);
    expect(state.scenario).toBe('A');
    expect(state.user_context).toEqual({ name: 'Ada' });
    expect(state.chat_history).toEqual([{ role: 'user', content: 'p' }]);
    expect(state.action_history[0].map((a) => a.id)).toEqual([1, 2, 5]);
    expect(state.usage[0]).toEqual(s[2].usage[0]);
    expect(delta.action).toMatchObject({
      node: 'fork',
      next: ['planner'],
      result: { from_version: 2, edits: 1 },
    });
    // The reducer replays the recorded delta to the same state (as a later load does).
    expect(applyDelta(s[4], JSON.parse(JSON.stringify(delta)))).toEqual(state);
    // Neither input state was touched.
    expect(s[2].user_context).toEqual({});
    expect(s[4].scenario).toBe('B');
  });

  it('removes a field the earlier version did not have', () => {
    const s = thread();
    const head = { ...s[4], graph: { variables: {}, outputs: {} } } as unknown as RuntimeState;
    const ops = rewindPatch(head, s[2], R2);
    expect(ops).toContainEqual({ op: 'remove', path: '/graph' });
    expect(ops.map((o) => o.path)).not.toContain('/version');
    expect(ops.map((o) => o.path)).not.toContain('/thread_id');
  });

  it('writes only the run id when the branch goes on from the head itself', () => {
    const s = thread();
    expect(rewindPatch(s[4], s[4], R2)).toEqual([{ op: 'replace', path: '/run_id', value: R2 }]);
  });

  it('rejects an edit that leaves the state invalid', () => {
    const s = thread();
    expect(() =>
      forkDelta({
        head: s[4],
        at: s[2],
        runId: R2,
        edits: [{ op: 'replace', path: '/scenario', value: 42 }],
        next: [],
      }),
    ).toThrow(DeltaRejectedException);
  });
});
