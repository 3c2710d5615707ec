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
  it('ships the newest contiguous deltas of the thread, at most `keep`', () => {
    const recent = new RecentDeltas(3, 10_000);
    recent.record(THREAD, 0, [held(1)]);
    recent.record(THREAD, 1, [held(2), held(3)]);

    const shipped = recent.record(THREAD, 3, [held(4)]);

    expect(ids(shipped)).toEqual([2, 3, 4]);
  });

  it('starts afresh when a step was committed on top of a version it does not hold', () => {
    const recent = new RecentDeltas(4, 10_000);
    recent.record(THREAD, 0, [held(1), held(2)]);

    // Another replica committed versions 3 and 4 meanwhile.
    const shipped = recent.record(THREAD, 4, [held(5)]);

    expect(ids(shipped)).toEqual([5]);
    expect(ids(recent.record(THREAD, 5, [held(6)]))).toEqual([5, 6]);
  });

  it('ships only the newest deltas that fit the byte budget, and none when the last is too big', () => {
    const recent = new RecentDeltas(4, 250);
    recent.record(THREAD, 0, [held(1, 100), held(2, 100)]);

    expect(ids(recent.record(THREAD, 2, [held(3, 120)]))).toEqual([2, 3]);
    expect(recent.record(THREAD, 3, [held(4, 300)])).toEqual([]);
  });

  it('keeps threads apart', () => {
    const recent = new RecentDeltas(4, 10_000);
    recent.record(THREAD, 0, [held(1)]);

    expect(ids(recent.record(OTHER, 0, [held(1)]))).toEqual([1]);
    expect(ids(recent.record(THREAD, 1, [held(2)]))).toEqual([1, 2]);
  });
});
