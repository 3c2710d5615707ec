import { type Action, type CommittedDelta, type RuntimeState, ZERO_USAGE } from '@switchyard/contracts';
import { applyDelta, emptyState, openTurnPatch } from './apply-delta';
import { MemoryStateSource } from './memory-state-source';
import { StateCache, jsonBytes } from './state-cache';

const T0 = '2024-05-01T10:00:00.000Z';
const THREAD_A = '5c0ffee0-0000-4000-8000-00000000000a';
const THREAD_B = '5c0ffee0-0000-4000-8000-00000000000b';
const THREAD_C = '5c0ffee0-0000-4000-8000-00000000000c';
const RUN = '5c0ffee0-1111-4000-8000-000000000001';

function action(id: number, node: string): Action {
  return {
    id,
    node,
    preparation: '',
    summary: `${node} #${id}`,
    result: { id },
    usage: { prompt_tokens: id, completion_tokens: 1, total_tokens: id + 1 },
    next: [],
    started_at: T0,
    finished_at: T0,
    attempt: 1,
  };
}

/** A thread log as the orchestrator writes it: the start delta, then `steps` node deltas. */
function threadLog(steps: number): CommittedDelta[] {
  const log: CommittedDelta[] = [
    {
      action: { ...action(1, 'start'), usage: { ...ZERO_USAGE } },
      patch: openTurnPatch({ run_id: RUN, turn: 0, prompt: 'hi' }),
    },
  ];
  for (let v = 2; v <= steps + 1; v++) {
    log.push({
      action: action(v, v % 2 ? 'reflection' : 'planner'),
      patch: [{ op: 'add', path: '/task_goals/0', value: `goal at ${v}` }],
    });
  }
  return log;
}

/** Thread A at version 4, as the tests' bounds are cut around it. */
const expected0 = (): RuntimeState => fold(THREAD_A, threadLog(9).slice(0, 4));

const fold = (threadId: string, deltas: CommittedDelta[]): RuntimeState =>
  deltas.reduce(applyDelta, emptyState(threadId, threadId));

/** The cache's own contract over an in-memory log, counting what the cache asks of it. */
class InMemoryStateSource extends MemoryStateSource {
  readonly calls: { load: [string, number][]; deltasBetween: [string, number, number][] } = {
    load: [],
    deltasBetween: [],
  };
  /** Deltas withheld from deltasBetween (to simulate a gap in the log). */
  dropFromRanges = 0;

  override async load(threadId: string, version: number): Promise<RuntimeState> {
    this.calls.load.push([threadId, version]);
    return super.load(threadId, version);
  }

  override async deltasBetween(
    threadId: string,
    afterVersion: number,
    uptoVersion: number,
  ): Promise<CommittedDelta[]> {
    this.calls.deltasBetween.push([threadId, afterVersion, uptoVersion]);
    const slice = await super.deltasBetween(threadId, afterVersion, uptoVersion);
    return slice.slice(0, Math.max(0, slice.length - this.dropFromRanges));
  }
}

function setup(maxThreads?: number, maxBytes?: number) {
  const logs = new Map([
    [THREAD_A, threadLog(9)],
    [THREAD_B, threadLog(4)],
    [THREAD_C, threadLog(2)],
  ]);
  const source = new InMemoryStateSource(logs);
  const cache = new StateCache(source, maxThreads, maxBytes);
  const expected = (threadId: string, version: number) =>
    fold(threadId, logs.get(threadId)!.slice(0, version));
  return { source, cache, expected, logs };
}

describe(StateCache.name, () => {
  it('loads a thread it has never seen (a miss)', async () => {
    const { source, cache, expected } = setup();

    const state = await cache.get(THREAD_A, 4);

    expect(state).toEqual(expected(THREAD_A, 4));
    expect(state.version).toBe(4);
    expect(source.calls.load).toEqual([[THREAD_A, 4]]);
    expect(source.calls.deltasBetween).toEqual([]);
    expect(cache.stats).toEqual({ hits: 0, catchUps: 0, misses: 1 });
  });

  it('serves the same version from memory (a hit), returning the cached state', async () => {
    const { source, cache } = setup();
    const first = await cache.get(THREAD_A, 4);

    const second = await cache.get(THREAD_A, 4);

    expect(second).toBe(first);
    expect(source.calls.load).toHaveLength(1);
    expect(source.calls.deltasBetween).toHaveLength(0);
    expect(cache.stats).toEqual({ hits: 1, catchUps: 0, misses: 1 });
  });

  it('catches up a state that is behind with one range query for the missing deltas only', async () => {
    const { source, cache, expected } = setup();
    await cache.get(THREAD_A, 2);

    const state = await cache.get(THREAD_A, 7);

    expect(state).toEqual(expected(THREAD_A, 7));
    expect(source.calls.deltasBetween).toEqual([[THREAD_A, 2, 7]]);
    expect(source.calls.load).toEqual([[THREAD_A, 2]]);
    expect(cache.stats).toEqual({ hits: 0, catchUps: 1, misses: 1 });
  });

  it('keeps the caught-up state, so the next task at that version is a hit', async () => {
    const { source, cache } = setup();
    await cache.get(THREAD_A, 2);
    const caughtUp = await cache.get(THREAD_A, 7);

    expect(await cache.get(THREAD_A, 7)).toBe(caughtUp);
    expect(source.calls.load).toHaveLength(1);
    expect(cache.stats).toEqual({ hits: 1, catchUps: 1, misses: 1 });
  });

  it('falls back to a full load when the range query leaves a gap', async () => {
    const { source, cache, expected } = setup();
    await cache.get(THREAD_A, 2);
    source.dropFromRanges = 1;

    const state = await cache.get(THREAD_A, 6);

    expect(state).toEqual(expected(THREAD_A, 6));
    expect(source.calls.deltasBetween).toEqual([[THREAD_A, 2, 6]]);
    expect(source.calls.load).toEqual([
      [THREAD_A, 2],
      [THREAD_A, 6],
    ]);
    expect(cache.stats.catchUps).toBe(1);
  });

  it('loads an older version than the cached one without regressing the cache', async () => {
    const { source, cache, expected } = setup();
    const newer = await cache.get(THREAD_A, 8);

    const older = await cache.get(THREAD_A, 3);

    expect(older).toEqual(expected(THREAD_A, 3));
    expect(source.calls.load).toEqual([
      [THREAD_A, 8],
      [THREAD_A, 3],
    ]);
    expect(await cache.get(THREAD_A, 8)).toBe(newer);
    expect(cache.stats).toEqual({ hits: 1, catchUps: 0, misses: 2 });
  });

  it('propagates a failing load and caches nothing', async () => {
    const { source, cache } = setup();

    await expect(cache.get(THREAD_C, 99)).rejects.toThrow('no state at version 99');
    await cache.get(THREAD_C, 3);

    expect(source.calls.load).toEqual([
      [THREAD_C, 99],
      [THREAD_C, 3],
    ]);
    expect(cache.stats.misses).toBe(2);
  });

  it('keeps threads apart', async () => {
    const { cache, expected } = setup();

    const a = await cache.get(THREAD_A, 5);
    const b = await cache.get(THREAD_B, 5);

    expect(a).toEqual(expected(THREAD_A, 5));
    expect(b).toEqual(expected(THREAD_B, 5));
    expect(b.thread_id).toBe(THREAD_B);
    expect(cache.stats).toEqual({ hits: 0, catchUps: 0, misses: 2 });
  });

  describe('deltas shipped with the task (recent)', () => {
    it('catches up from them without asking the source when they reach back to the cached version', async () => {
      const { source, cache, expected, logs } = setup();
      await cache.get(THREAD_A, 4);

      const state = await cache.get(THREAD_A, 7, logs.get(THREAD_A)!.slice(3, 7));

      expect(state).toEqual(expected(THREAD_A, 7));
      expect(source.calls.deltasBetween).toEqual([]);
      expect(source.calls.load).toEqual([[THREAD_A, 4]]);
      expect(cache.stats).toEqual({ hits: 0, catchUps: 1, misses: 1 });
    });

    it('reads the missing deltas from the source when the shipped ones start after the cached version', async () => {
      const { source, cache, expected, logs } = setup();
      await cache.get(THREAD_A, 2);

      const state = await cache.get(THREAD_A, 7, logs.get(THREAD_A)!.slice(4, 7));

      expect(state).toEqual(expected(THREAD_A, 7));
      expect(source.calls.deltasBetween).toEqual([[THREAD_A, 2, 7]]);
    });

    it('does not trust shipped deltas that stop short of the task version', async () => {
      const { source, cache, expected, logs } = setup();
      await cache.get(THREAD_A, 4);

      const state = await cache.get(THREAD_A, 7, logs.get(THREAD_A)!.slice(4, 6));

      expect(state).toEqual(expected(THREAD_A, 7));
      expect(source.calls.deltasBetween).toEqual([[THREAD_A, 4, 7]]);
    });

    it('replays a shipped whole log on a miss (a young thread) without asking the source', async () => {
      const { source, cache, expected, logs } = setup();

      const state = await cache.get(THREAD_B, 5, logs.get(THREAD_B)!.slice(0, 5));

      expect(state).toEqual(expected(THREAD_B, 5));
      expect(source.calls.load).toEqual([]);
      expect(source.calls.deltasBetween).toEqual([]);
      expect(await cache.get(THREAD_B, 5)).toBe(state);
    });

    it('loads in full on a miss when what was shipped is not the whole log', async () => {
      const { source, cache, expected, logs } = setup();

      const state = await cache.get(THREAD_B, 5, logs.get(THREAD_B)!.slice(3, 5));

      expect(state).toEqual(expected(THREAD_B, 5));
      expect(source.calls.load).toEqual([[THREAD_B, 5]]);
    });
  });

  describe('put', () => {
    it('records a state computed by the caller, so the next get is a hit without the source', async () => {
      const { source, cache, expected } = setup();
      const computed = expected(THREAD_A, 5);

      cache.put(computed);

      expect(await cache.get(THREAD_A, 5)).toBe(computed);
      expect(source.calls.load).toEqual([]);
      expect(cache.stats).toEqual({ hits: 1, catchUps: 0, misses: 0 });
    });

    it('does not regress to an older version', async () => {
      const { source, cache, expected } = setup();
      const newer = expected(THREAD_A, 6);
      cache.put(newer);

      cache.put(expected(THREAD_A, 3));

      expect(await cache.get(THREAD_A, 6)).toBe(newer);
      expect(source.calls.load).toEqual([]);
    });

    it('replaces the cached state with a newer one, so later tasks catch up from it', async () => {
      const { source, cache, expected } = setup();
      await cache.get(THREAD_A, 2);
      cache.put(expected(THREAD_A, 5));

      const state = await cache.get(THREAD_A, 8);

      expect(state).toEqual(expected(THREAD_A, 8));
      expect(source.calls.deltasBetween).toEqual([[THREAD_A, 5, 8]]);
    });
  });

  it('forgets an evicted thread', async () => {
    const { source, cache } = setup();
    await cache.get(THREAD_A, 4);

    cache.evict(THREAD_A);
    await cache.get(THREAD_A, 4);

    expect(source.calls.load).toEqual([
      [THREAD_A, 4],
      [THREAD_A, 4],
    ]);
    expect(cache.stats).toEqual({ hits: 0, catchUps: 0, misses: 2 });
  });

  describe('LRU eviction', () => {
    it('drops the least recently used thread beyond maxThreads', async () => {
      const { source, cache } = setup(2);
      await cache.get(THREAD_A, 3);
      await cache.get(THREAD_B, 3);
      await cache.get(THREAD_C, 3); // evicts A

      await cache.get(THREAD_A, 3); // miss again, evicts B
      await cache.get(THREAD_C, 3); // still cached

      expect(source.calls.load.map(([t]) => t)).toEqual([THREAD_A, THREAD_B, THREAD_C, THREAD_A]);
      expect(cache.stats).toEqual({ hits: 1, catchUps: 0, misses: 4 });
    });

    it('counts a hit as a use, so a recently read thread survives', async () => {
      const { source, cache } = setup(2);
      await cache.get(THREAD_A, 3);
      await cache.get(THREAD_B, 3);
      await cache.get(THREAD_A, 3); // hit: A is now the most recent

      await cache.get(THREAD_C, 3); // evicts B, not A

      await cache.get(THREAD_A, 3);
      await cache.get(THREAD_B, 3);
      expect(source.calls.load.map(([t]) => t)).toEqual([THREAD_A, THREAD_B, THREAD_C, THREAD_B]);
      expect(cache.stats).toEqual({ hits: 2, catchUps: 0, misses: 4 });
    });

    it('evicts on put as well', async () => {
      const { source, cache, expected } = setup(1);
      cache.put(expected(THREAD_A, 3));

      cache.put(expected(THREAD_B, 3));
      await cache.get(THREAD_A, 3);

      expect(source.calls.load).toEqual([[THREAD_A, 3]]);
    });
  });

  describe('peek', () => {
    it('gives the held state at exactly that version, counted as a hit, and reads nothing', async () => {
      const { source, cache } = setup();
      const held = await cache.get(THREAD_A, 4);

      expect(cache.peek(THREAD_A, 4)).toBe(held);
      expect(cache.peek(THREAD_A, 5)).toBeUndefined();
      expect(cache.peek(THREAD_B, 4)).toBeUndefined();
      expect(source.calls.load).toEqual([[THREAD_A, 4]]);
      expect(source.calls.deltasBetween).toEqual([]);
      expect(cache.stats).toEqual({ hits: 1, catchUps: 0, misses: 1 });
    });
  });

  describe('the byte bound', () => {
    const deltaBytes = (logs: Map<string, CommittedDelta[]>, thread: string, from: number, upto: number) =>
      logs
        .get(thread)!
        .slice(from, upto)
        .reduce((sum, d) => sum + jsonBytes(d), 0);

    it('weighs a loaded state whole, then grows its weight by each applied delta only', async () => {
      const { cache, expected, logs } = setup();
      await cache.get(THREAD_A, 4);
      const loaded = jsonBytes(expected(THREAD_A, 4));
      expect(cache.bytes).toBe(loaded);

      await cache.get(THREAD_A, 7);

      expect(cache.bytes).toBe(loaded + deltaBytes(logs, THREAD_A, 4, 7));
      expect(cache.size).toBe(1);
    });

    it('weighs a replayed shipped log by its deltas', async () => {
      const { cache, logs } = setup();

      await cache.get(THREAD_B, 5, logs.get(THREAD_B)!.slice(0, 5));

      expect(cache.bytes).toBe(deltaBytes(logs, THREAD_B, 0, 5));
    });

    it("grows a put state's weight by the bytes its caller logged, without weighing the state", async () => {
      const { cache, expected } = setup();
      await cache.get(THREAD_A, 4);
      const before = cache.bytes;

      cache.put(expected(THREAD_A, 6), { from: 4, bytes: 1234 });

      expect(cache.bytes).toBe(before + 1234);
    });

    it('weighs a put state whole when the cache does not hold the version it grew from', async () => {
      const { cache, expected } = setup();
      await cache.get(THREAD_A, 2);

      cache.put(expected(THREAD_A, 6), { from: 4, bytes: 1234 });

      expect(cache.bytes).toBe(jsonBytes(expected(THREAD_A, 6)));
    });

    it('drops the least recently used threads once their bytes pass the bound', async () => {
      const weigh = setup();
      const bound = jsonBytes(weigh.expected(THREAD_A, 3)) + jsonBytes(weigh.expected(THREAD_B, 3)) + 10;
      const { source, cache } = setup(100, bound);
      await cache.get(THREAD_A, 3);
      await cache.get(THREAD_B, 3);
      await cache.get(THREAD_A, 3); // hit: B is now the least recently used

      await cache.get(THREAD_C, 3); // over the bound: evicts B

      expect(cache.size).toBe(2);
      expect(cache.bytes).toBeLessThanOrEqual(bound);
      await cache.get(THREAD_A, 3);
      await cache.get(THREAD_B, 3);
      expect(source.calls.load.map(([t]) => t)).toEqual([THREAD_A, THREAD_B, THREAD_C, THREAD_B]);
    });

    it('does not keep a state heavier than the whole bound, counts it, and reads it again', async () => {
      const { source, cache } = setup(100, jsonBytes(expected0()) - 1);
      await cache.get(THREAD_A, 4);

      await cache.get(THREAD_A, 4);

      expect(cache.oversized).toBe(2);
      expect(cache.size).toBe(0);
      expect(cache.bytes).toBe(0);
      expect(source.calls.load).toEqual([
        [THREAD_A, 4],
        [THREAD_A, 4],
      ]);
    });

    it('drops the older version of a thread whose newer state no longer fits', async () => {
      const { source, cache, expected } = setup(100, jsonBytes(expected0()) + 50);
      await cache.get(THREAD_A, 4); // fits
      expect(cache.size).toBe(1);

      cache.put(expected(THREAD_A, 9)); // too heavy: not kept, and the version-4 state goes too

      expect(cache.size).toBe(0);
      expect(cache.oversized).toBe(1);
      await cache.get(THREAD_A, 9);
      expect(source.calls.load).toEqual([
        [THREAD_A, 4],
        [THREAD_A, 9],
      ]);
    });
  });
});
