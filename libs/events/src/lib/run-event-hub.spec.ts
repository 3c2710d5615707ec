import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import type { RunEvent } from '@switchyard/contracts';
import { RunEventHub } from './run-event-hub';
import { RunEventWriter, eventsKey } from './run-events';

// Against the machine's real Redis; every test uses fresh run ids.
const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';

describe('RunEventHub', () => {
  let redis: Redis;
  let writer: RunEventWriter;
  const hubs: RunEventHub[] = [];
  const runs: string[] = [];

  beforeAll(() => {
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
    writer = new RunEventWriter(redis);
  });
  afterAll(async () => {
    await Promise.all(hubs.map((h) => h.close()));
    if (runs.length) {
      await redis.del(...runs.map(eventsKey));
    }
    redis.disconnect();
  });

  function hub(ended: Set<string>, queries: string[][], runsPerReader?: number): RunEventHub {
    const h = new RunEventHub(redis, () => redis.duplicate(), {
      runsPerReader,
      watchdogMs: 50,
      endedRuns: async (ids) => {
        queries.push([...ids].sort());
        return new Set(ids.filter((id) => ended.has(id)));
      },
    });
    hubs.push(h);
    return h;
  }

  function newRun(): string {
    const id = randomUUID();
    runs.push(id);
    return id;
  }

  const until = async (cond: () => boolean, ms = 3000): Promise<void> => {
    const end = Date.now() + ms;
    while (!cond()) {
      if (Date.now() > end) {
        throw new Error('condition not met in time');
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  };

  it('fans live events out to every subscriber of a run', async () => {
    const h = hub(new Set(), []);
    const run = newRun();
    const got: RunEvent[][] = [[], []];
    const unsubs = await Promise.all(
      got.map((list) => h.subscribe(run, '0-0', (events) => list.push(...events))),
    );
    await writer.append(run, 'status', { status: 'running' });
    await writer.append(run, 'done', { status: 'succeeded' });

    await until(() => got.every((l) => l.length === 2));
    expect(got[0].map((e) => e.event_type)).toEqual(['status', 'done']);
    expect(got[1].map((e) => e.seq)).toEqual(got[0].map((e) => e.seq));
    unsubs.forEach((u) => u());
  });

  it('tells subscribers once, with one query per tick for all runs, when a run ended without done', async () => {
    const ended = new Set<string>();
    const queries: string[][] = [];
    const h = hub(ended, queries);
    const quiet = newRun();
    const live = newRun();
    await writer.append(quiet, 'status', { status: 'queued' });
    let calls = 0;
    const subs = await Promise.all(
      Array.from({ length: 20 }, () =>
        h.subscribe(
          quiet,
          '0-0',
          () => undefined,
          () => calls++,
        ),
      ),
    );
    let liveCalls = 0;
    await h.subscribe(
      live,
      '0-0',
      () => undefined,
      () => liveCalls++,
    );

    await until(() => queries.length >= 3);
    expect(calls).toBe(0);
    // 21 subscribers on two runs: each tick asks about the two runs, once.
    expect(queries.every((q) => q.length === 2)).toBe(true);

    ended.add(quiet);
    await until(() => calls === 20);
    await new Promise((r) => setTimeout(r, 200));
    expect(calls).toBe(20);
    expect(liveCalls).toBe(0);
    subs.forEach((u) => u());
  });

  it('does not call a run quiet when the subscriber already got its done, or events are still coming', async () => {
    const ended = new Set<string>();
    const h = hub(ended, []);
    const done = newRun();
    const behind = newRun();
    let doneCalls = 0;
    await h.subscribe(
      done,
      '0-0',
      () => undefined,
      () => doneCalls++,
    );
    await writer.append(done, 'done', { status: 'succeeded' });
    ended.add(done);

    // A subscriber whose cursor is behind the stream's last event is not told: its events are on
    // their way through the shared read.
    const first = await writer.append(behind, 'status', { status: 'queued' });
    await writer.append(behind, 'status', { status: 'running' });
    let behindCalls = 0;
    const got: RunEvent[] = [];
    await h.subscribe(
      behind,
      first,
      (e) => got.push(...e),
      () => behindCalls++,
    );
    ended.add(behind);

    await until(() => got.length === 1);
    await new Promise((r) => setTimeout(r, 400));
    expect(doneCalls).toBe(0);
    // It has everything now and no done came: it is told exactly once.
    expect(behindCalls).toBe(1);
  });

  it('follows runs in shards of runsPerReader, each on a read of its own, and closes emptied ones', async () => {
    const name = `hub-spec-${randomUUID().slice(0, 8)}`;
    const h = new RunEventHub(redis, () => redis.duplicate({ connectionName: name }), { runsPerReader: 2 });
    hubs.push(h);
    const reads = async () =>
      ((await redis.client('LIST')) as string).split('\n').filter((l) => l.includes(` name=${name} `)).length;
    const ids = Array.from({ length: 5 }, newRun);
    const got = new Map<string, RunEvent[]>(ids.map((id) => [id, []]));
    const unsubs = await Promise.all(
      ids.map((id) => h.subscribe(id, '0-0', (events) => got.get(id)!.push(...events))),
    );
    expect(h.size).toEqual({ runs: 5, subscribers: 5, readers: 3 });
    for (const id of ids) {
      await writer.append(id, 'status', { status: 'running' });
    }
    await until(() => ids.every((id) => got.get(id)!.length === 1));
    expect(await reads()).toBe(3);

    // Four runs go: their reads close, but for the one the last run is on.
    unsubs.slice(0, 4).forEach((u) => u());
    expect(h.size).toEqual({ runs: 1, subscribers: 1, readers: 1 });
    await writer.append(ids[4], 'done', { status: 'succeeded' });
    await until(() => got.get(ids[4])!.length === 2);
    let open = 3;
    for (let i = 0; i < 100 && open > 1; i++) {
      await new Promise((r) => setTimeout(r, 20));
      open = await reads();
    }
    expect(open).toBe(1);

    // A new run has room on the read that stayed.
    const again = newRun();
    const later: RunEvent[] = [];
    const unsub = await h.subscribe(again, '0-0', (events) => later.push(...events));
    expect(h.size.readers).toBe(1);
    await writer.append(again, 'status', { status: 'queued' });
    await until(() => later.length === 1);
    unsub();
    unsubs[4]();
  });
});
