import type Redis from 'ioredis';
import type { EventPayload, EventType, RunEvent } from '@switchyard/contracts';

export const eventsKey = (runId: string): string => `sy:run:${runId}:events`;

/** A task's start count is needed while it may come again: well past its lease and retries. */
export const TASK_STARTS_TTL_SECONDS = 3600;

/** Process events are short-lived: kept this long after the run ends (results live in Postgres). */
export const DEFAULT_EVENTS_TTL_SECONDS = 24 * 3600;

type Fields = string[];

export function toEvent(runId: string, id: string, fields: Fields): RunEvent {
  const map: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) {
    map[fields[i]] = fields[i + 1];
  }
  return {
    run_id: runId,
    seq: id,
    event_type: map['type'] as EventType,
    payload: JSON.parse(map['payload'] ?? '{}'),
    ts: Number(map['ts']),
  };
}

// KEYS: the start counter, the run's events. ARGV: counter TTL, deliveries, node_started payload, ts.
const START_TASK = `
local starts = redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], ARGV[1])
if starts > tonumber(ARGV[2]) then
  return {starts, 0}
end
redis.call('XADD', KEYS[2], '*', 'type', 'node_started', 'payload', ARGV[3], 'ts', ARGV[4])
return {starts, 1}
`;

// KEYS: the run's events. ARGV: ts, TTL in seconds ('' for none), then each event's type and payload.
// One command for a step's events, however many: a chain of inline steps appends two per step,
// which as MULTI/XADD…/EXEC cost a command, a QUEUED reply and an EXEC entry each to build and parse.
const APPEND_MANY = `
for i = 3, #ARGV, 2 do
  redis.call('XADD', KEYS[1], '*', 'type', ARGV[i], 'payload', ARGV[i + 1], 'ts', ARGV[1])
end
if ARGV[2] ~= '' then
  redis.call('EXPIRE', KEYS[1], ARGV[2])
end
return (#ARGV - 2) / 2
`;

/** Appends run events to the run's Redis Stream; `seq` is the stream id Redis assigns. */
export class RunEventWriter {
  constructor(private readonly redis: Redis) {}

  async append<T extends EventType>(runId: string, type: T, payload: EventPayload<T>): Promise<string> {
    const id = await this.redis.xadd(
      eventsKey(runId),
      '*',
      'type',
      type,
      'payload',
      JSON.stringify(payload),
      'ts',
      String(Date.now()),
    );
    return id as string;
  }

  /**
   * A task's start, in one round trip. Counts the starts of the task's attempt (`attempt` as the
   * orchestrator dispatched it) in any process: JetStream's delivery count alone does not tell,
   * a message redelivered after its consumer's client died can come back as delivery 1. When
   * the deliveries account for this start (`starts ≤ deliveries`, the common case) the same
   * script appends the task's `node_started` event (attempt = `attempt + deliveries − 1`);
   * otherwise (`started: false`) the event is left to the caller, which must first check
   * whether the task's work is already recorded.
   */
  async startTask(
    task: { run_id: string; task_id: string; node: string; attempt: number },
    deliveries: number,
    ttlSeconds = TASK_STARTS_TTL_SECONDS,
  ): Promise<{ starts: number; started: boolean }> {
    const payload = JSON.stringify({
      node: task.node,
      task_id: task.task_id,
      attempt: task.attempt + deliveries - 1,
    });
    const [starts, started] = (await this.redis.eval(
      START_TASK,
      2,
      `sy:task:${task.task_id}:${task.attempt}:starts`,
      eventsKey(task.run_id),
      ttlSeconds,
      deliveries,
      payload,
      String(Date.now()),
    )) as [number, number];
    return { starts: Number(starts), started: started === 1 };
  }

  /**
   * Several events in one round trip and one command, in order, with no other client's command
   * between them. Should one fail (the key holds no stream), those before it stay, as with MULTI.
   */
  async appendMany(
    runId: string,
    events: { type: EventType; payload: unknown }[],
    ttlSeconds?: number,
  ): Promise<void> {
    if (events.length === 0 && ttlSeconds === undefined) {
      return;
    }
    if (events.length === 1 && ttlSeconds === undefined) {
      // Most steps have one event: a plain XADD.
      await this.append(runId, events[0].type, events[0].payload as never);
      return;
    }
    const args: string[] = [String(Date.now()), ttlSeconds === undefined ? '' : String(ttlSeconds)];
    for (const e of events) {
      args.push(e.type, JSON.stringify(e.payload));
    }
    await this.redis.eval(APPEND_MANY, 1, eventsKey(runId), ...args);
  }
}

/** Reads a run's events: replay after a cursor, and blocking follow for live streaming. */
export class RunEventReader {
  static readonly toEvent = toEvent;

  constructor(private readonly redis: Redis) {}

  /** Events with after < seq ≤ upto. */
  async between(runId: string, after: string, upto: string): Promise<RunEvent[]> {
    const rows = (await this.redis.xrange(eventsKey(runId), `(${after}`, upto)) as [string, Fields][];
    return rows.map(([id, fields]) => toEvent(runId, id, fields));
  }

  async after(runId: string, afterSeq: string | null, count = 500): Promise<RunEvent[]> {
    const start = afterSeq ? `(${afterSeq}` : '-';
    const rows = (await this.redis.xrange(eventsKey(runId), start, '+', 'COUNT', count)) as [
      string,
      Fields,
    ][];
    return rows.map(([id, fields]) => toEvent(runId, id, fields));
  }

  /** The id of the n-th event (1-based), for integer cursors; null when n = 0 or beyond the end. */
  async idOfNth(runId: string, n: number): Promise<string | null> {
    if (n <= 0) {
      return null;
    }
    const rows = (await this.redis.xrange(eventsKey(runId), '-', '+', 'COUNT', n)) as [string, Fields][];
    return rows.length === n ? rows[n - 1][0] : rows.length ? rows[rows.length - 1][0] : null;
  }

  /** Blocks up to `blockMs` for events after `afterSeq` (use a dedicated connection). */
  async follow(runId: string, afterSeq: string | null, blockMs: number): Promise<RunEvent[]> {
    const res = (await this.redis.xread(
      'COUNT',
      500,
      'BLOCK',
      blockMs,
      'STREAMS',
      eventsKey(runId),
      afterSeq ?? '0-0',
    )) as [string, [string, Fields][]][] | null;
    if (!res) {
      return [];
    }
    return res[0][1].map(([id, fields]) => toEvent(runId, id, fields));
  }

  /** The id of the run's latest event (null when it has none): a cursor for "from now on". */
  async lastSeq(runId: string): Promise<string | null> {
    const rows = (await this.redis.xrevrange(eventsKey(runId), '+', '-', 'COUNT', 1)) as [string, Fields][];
    return rows[0]?.[0] ?? null;
  }

  /** Whether the stream still holds the event with this id. */
  async has(runId: string, seq: string): Promise<boolean> {
    const rows = (await this.redis.xrange(eventsKey(runId), seq, seq)) as unknown[];
    return rows.length > 0;
  }

  async exists(runId: string): Promise<boolean> {
    return (await this.redis.exists(eventsKey(runId))) === 1;
  }
}
