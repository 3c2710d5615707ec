import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { RunEventReader, RunEventWriter, eventsKey } from './run-events';

// Against the machine's real Redis; every test uses fresh run and task ids.
const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';

describe('RunEventWriter', () => {
  let redis: Redis;
  let writer: RunEventWriter;
  let reader: RunEventReader;
  const keys: string[] = [];

  beforeAll(() => {
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
    writer = new RunEventWriter(redis);
    reader = new RunEventReader(redis);
  });
  afterAll(async () => {
    if (keys.length) {
      await redis.del(...keys);
    }
    redis.disconnect();
  });

  function task(attempt = 1) {
    const t = { run_id: randomUUID(), task_id: randomUUID(), node: 'planner', attempt };
    keys.push(eventsKey(t.run_id), `sy:task:${t.task_id}:${attempt}:starts`);
    return t;
  }

  it('counts a first start and writes its node_started event in the same call', async () => {
    const t = task(2);
    expect(await writer.startTask(t, 1)).toEqual({ starts: 1, started: true });
    const events = await reader.after(t.run_id, null);
    expect(events.map((e) => [e.event_type, e.payload])).toEqual([
      ['node_started', { node: 'planner', task_id: t.task_id, attempt: 2 }],
    ]);
    // The counter expires (it is needed only while the task may come again).
    expect(await redis.ttl(`sy:task:${t.task_id}:2:starts`)).toBeGreaterThan(0);
  });

  it('leaves the event to the caller for a start the deliveries do not account for', async () => {
    const t = task();
    await writer.startTask(t, 1);
    // Its consumer's client died: JetStream numbers the redelivery 1 again.
    expect(await writer.startTask(t, 1, 60)).toEqual({ starts: 2, started: false });
    expect(await redis.ttl(`sy:task:${t.task_id}:1:starts`)).toBeLessThanOrEqual(60);
    // A redelivery JetStream counted: its event says the attempt it is.
    expect(await writer.startTask(t, 3)).toEqual({ starts: 3, started: true });
    const events = await reader.after(t.run_id, null);
    expect(events.map((e) => (e.payload as { attempt: number }).attempt)).toEqual([1, 3]);
  });

  it('appends a single event without a transaction, several in order with the TTL', async () => {
    const t = task();
    await writer.appendMany(t.run_id, [{ type: 'status', payload: { status: 'running' } }]);
    expect(await redis.ttl(eventsKey(t.run_id))).toBe(-1);
    await writer.appendMany(
      t.run_id,
      [
        { type: 'status', payload: { status: 'succeeded' } },
        { type: 'done', payload: {} },
      ],
      120,
    );
    const events = await reader.after(t.run_id, null);
    expect(events.map((e) => e.event_type)).toEqual(['status', 'status', 'done']);
    expect(await redis.ttl(eventsKey(t.run_id))).toBeGreaterThan(100);
  });

  it("appends a chain's events in one command, in order, payloads intact", async () => {
    const t = task();
    const events = Array.from({ length: 130 }, (_, i) =>
      i % 2
        ? {
            type: 'action' as const,
            payload: { id: i, summary: `"quoted" ünïcode ✓ ${'x'.repeat(i)}`, next: [] },
          }
        : { type: 'node_started' as const, payload: { node: `graph.c${i}`, task_id: `t${i}`, attempt: 1 } },
    );
    const sent = jest.spyOn(redis, 'sendCommand');
    await writer.appendMany(t.run_id, events);
    expect(sent.mock.calls.map(([c]) => c.name)).toEqual(['eval']);
    sent.mockRestore();
    const read = await reader.after(t.run_id, null);
    expect(read.map((e) => [e.event_type, e.payload])).toEqual(events.map((e) => [e.type, e.payload]));
    // One timestamp for the batch, and no TTL unless asked.
    expect(new Set(read.map((e) => e.ts)).size).toBe(1);
    expect(await redis.ttl(eventsKey(t.run_id))).toBe(-1);
    // No events, a TTL: the stream's TTL alone is set.
    await writer.appendMany(t.run_id, [], 90);
    expect(await redis.ttl(eventsKey(t.run_id))).toBeGreaterThan(80);
    expect(await reader.after(t.run_id, null)).toHaveLength(130);
  });

  it('fails loudly when the events cannot be appended', async () => {
    const t = task();
    await redis.set(eventsKey(t.run_id), 'not a stream');
    await expect(
      writer.appendMany(t.run_id, [
        { type: 'status', payload: { status: 'running' } },
        { type: 'done', payload: {} },
      ]),
    ).rejects.toThrow(/WRONGTYPE/);
  });
});
