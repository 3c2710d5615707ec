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
    // The thread's first nine versions were committed before this process held it.
    recent.record(THREAD, 9, [held(10)]);
    expect(ids(recent.forTask(THREAD, 'planner', 10))).toEqual([10]);

    recent.record(THREAD, 10, [held(11)]);
    expect(ids(recent.forTask(THREAD, 'tools', 11))).toEqual([11]);
    recent.record(THREAD, 11, [held(12)]);
    expect(ids(recent.forTask(THREAD, 'reflection', 12))).toEqual([12]);
    recent.record(THREAD, 12, [held(13)]);

    expect(ids(recent.forTask(THREAD, 'planner', 13))).toEqual([11, 12, 13]);
  });

  it('sends a service that has not seen a young thread its whole log, while it is held whole', () => {
    const recent = new RecentDeltas(4, 10_000);
    recent.record(THREAD, 0, [held(1)]);
    expect(ids(recent.forTask(THREAD, 'intake', 1))).toEqual([1]);
    recent.record(THREAD, 1, [held(2)]);
    recent.record(THREAD, 2, [held(3), held(4)]);

    expect(ids(recent.forTask(THREAD, 'planner', 4))).toEqual([1, 2, 3, 4]);
    expect(ids(recent.forTask(THREAD, 'intake', 4))).toEqual([2, 3, 4]);

    // Version 1 is no longer held: a newcomer gets the newest only (and reads the rest).
    recent.record(THREAD, 4, [held(5)]);
    expect(ids(recent.forTask(THREAD, 'output', 5))).toEqual([5]);
  });

  it('never ships a log with a fork in it as the whole log (its load starts at a snapshot)', () => {
    const recent = new RecentDeltas(8, 10_000);
    const fork = held(2);
    fork.delta.action.node = 'fork';
    recent.record(THREAD, 0, [held(1)]);
    recent.record(THREAD, 1, [fork]);
    recent.record(THREAD, 2, [held(3)]);

    expect(ids(recent.forTask(THREAD, 'planner', 3))).toEqual([3]);
  });

  it('gives every task of one step for one service the same deltas (a fan-out)', () => {
    const recent = new RecentDeltas(8, 10_000);
    recent.record(THREAD, 100, [held(101)]);
    recent.forTask(THREAD, 'tools', 101);
    recent.record(THREAD, 101, [held(102), held(103)]);

    expect(ids(recent.forTask(THREAD, 'tools', 103))).toEqual([102, 103]);
    expect(ids(recent.forTask(THREAD, 'tools', 103))).toEqual([102, 103]);
  });

  it('sends nothing when what the service lacks is no longer held', () => {
    const recent = new RecentDeltas(2, 10_000);
    recent.record(THREAD, 100, [held(101)]);
    recent.forTask(THREAD, 'planner', 101);
    recent.record(THREAD, 101, [held(102)]);
    recent.record(THREAD, 102, [held(103), held(104)]);

    expect(recent.forTask(THREAD, 'planner', 104)).toEqual([]);
  });

  it('sends nothing when what the service lacks exceeds the byte budget', () => {
    const recent = new RecentDeltas(4, 250);
    recent.record(THREAD, 100, [held(101)]);
    recent.forTask(THREAD, 'planner', 101);
    recent.record(THREAD, 101, [held(102, 200)]);
    recent.record(THREAD, 102, [held(103, 100)]);

    expect(recent.forTask(THREAD, 'planner', 103)).toEqual([]);
    expect(ids(recent.forTask(THREAD, 'tools', 103))).toEqual([103]);
  });

  it('starts afresh when a step was committed on top of a version it does not hold', () => {
    const recent = new RecentDeltas(4, 10_000);
    recent.record(THREAD, 100, [held(101), held(102)]);
    recent.forTask(THREAD, 'planner', 102);

    // Another replica committed versions 103 and 104 meanwhile.
    recent.record(THREAD, 104, [held(105)]);

    expect(ids(recent.forTask(THREAD, 'planner', 105))).toEqual([105]);
    expect(recent.forTask(THREAD, 'planner', 104)).toEqual([]);
  });

  it('keeps threads apart', () => {
    const recent = new RecentDeltas(4, 10_000);
    recent.record(THREAD, 100, [held(101)]);
    recent.record(OTHER, 100, [held(101)]);
    recent.forTask(THREAD, 'planner', 101);
    recent.record(THREAD, 101, [held(102)]);
    recent.record(OTHER, 101, [held(102)]);

    expect(ids(recent.forTask(THREAD, 'planner', 102))).toEqual([102]);
    expect(ids(recent.forTask(OTHER, 'planner', 102))).toEqual([102]);
  });
});
