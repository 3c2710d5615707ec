import type { CommittedDelta } from '@switchyard/contracts';
import { ZERO_USAGE } from '@switchyard/contracts';
import { RecentDeltas } from './recent-deltas';

const T0 = '2024-05-01T10:00:00.000Z';
const THREAD = '5c0ffee0-0000-4000-8000-00000000000a';
const OTHER = '5c0ffee0-0000-4000-8000-00000000000b';

/** The delta committed at `version`, with the JSON length the orchestrator would count. */
function held(version: number, bytes = 100): { delta: CommittedDelta; bytes: number } {
  return {
    delta: {
      action: {
        id: version,
        node: 'planner',
        preparation: '',
        summary: `#${version}`,
        result: null,
        usage: { ...ZERO_USAGE },
        next: [],
        started_at: T0,
        finished_at: T0,
        attempt: 1,
      },
    },
    bytes,
  };
}

const ids = (deltas: CommittedDelta[]) => deltas.map((d) => d.action.id);

describe(RecentDeltas.name, () => {
  it('sends a service only the newest delta with its first task, then what it has not seen', () => {
    const recent = new RecentDeltas(8, 10_000);
    recent.record(THREAD, 0, [held(1)]);
    expect(ids(recent.forTask(THREAD, 'planner', 1))).toEqual([1]);

    recent.record(THREAD, 1, [held(2)]);
    expect(ids(recent.forTask(THREAD, 'tools', 2))).toEqual([2]);
    recent.record(THREAD, 2, [held(3)]);
    expect(ids(recent.forTask(THREAD, 'reflection', 3))).toEqual([3]);
    recent.record(THREAD, 3, [held(4)]);

    expect(ids(recent.forTask(THREAD, 'planner', 4))).toEqual([2, 3, 4]);
  });

  it('gives every task of one step for one service the same deltas (a fan-out)', () => {
    const recent = new RecentDeltas(8, 10_000);
    recent.record(THREAD, 0, [held(1)]);
    recent.forTask(THREAD, 'tools', 1);
    recent.record(THREAD, 1, [held(2), held(3)]);

    expect(ids(recent.forTask(THREAD, 'tools', 3))).toEqual([2, 3]);
    expect(ids(recent.forTask(THREAD, 'tools', 3))).toEqual([2, 3]);
  });

  it('sends nothing when what the service lacks is no longer held', () => {
    const recent = new RecentDeltas(2, 10_000);
    recent.record(THREAD, 0, [held(1)]);
    recent.forTask(THREAD, 'planner', 1);
    recent.record(THREAD, 1, [held(2)]);
    recent.record(THREAD, 2, [held(3), held(4)]);

    expect(recent.forTask(THREAD, 'planner', 4)).toEqual([]);
  });

  it('sends nothing when what the service lacks exceeds the byte budget', () => {
    const recent = new RecentDeltas(4, 250);
    recent.record(THREAD, 0, [held(1)]);
    recent.forTask(THREAD, 'planner', 1);
    recent.record(THREAD, 1, [held(2, 200)]);
    recent.record(THREAD, 2, [held(3, 100)]);

    expect(recent.forTask(THREAD, 'planner', 3)).toEqual([]);
    expect(ids(recent.forTask(THREAD, 'tools', 3))).toEqual([3]);
  });

  it('starts afresh when a step was committed on top of a version it does not hold', () => {
    const recent = new RecentDeltas(4, 10_000);
    recent.record(THREAD, 0, [held(1), held(2)]);
    recent.forTask(THREAD, 'planner', 2);

    // Another replica committed versions 3 and 4 meanwhile.
    recent.record(THREAD, 4, [held(5)]);

    expect(ids(recent.forTask(THREAD, 'planner', 5))).toEqual([5]);
    expect(recent.forTask(THREAD, 'planner', 4)).toEqual([]);
  });

  it('keeps threads apart', () => {
    const recent = new RecentDeltas(4, 10_000);
    recent.record(THREAD, 0, [held(1)]);
    recent.record(OTHER, 0, [held(1)]);
    recent.forTask(THREAD, 'planner', 1);
    recent.record(THREAD, 1, [held(2)]);
    recent.record(OTHER, 1, [held(2)]);

    expect(ids(recent.forTask(THREAD, 'planner', 2))).toEqual([2]);
    expect(ids(recent.forTask(OTHER, 'planner', 2))).toEqual([2]);
  });
});
