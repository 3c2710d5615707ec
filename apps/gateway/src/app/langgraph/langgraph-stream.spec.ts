import type { EventType, RunEvent, RunStatus } from '@switchyard/contracts';
import { compareSeq } from '@switchyard/contracts';
import { LangGraphEncoding, type LgStreamOptions } from './langgraph-stream';

const RUN = '11111111-1111-4111-8111-111111111111';
const THREAD = '22222222-2222-4222-8222-222222222222';

let n = 0;
const ev = <T extends EventType>(event_type: T, payload: RunEvent<T>['payload']): RunEvent =>
  ({ run_id: RUN, seq: `1000-${++n}`, event_type, payload, ts: 0 }) as RunEvent;

/** A run's log: start, two answer tokens, a planner token, two actions, then the end. */
function log(status: RunStatus = 'succeeded'): RunEvent[] {
  n = 0;
  return [
    ev('status', { status: 'queued' }),
    ev('action', { id: 1, node: 'start', summary: 's', next: ['planner'], usage: u() }),
    ev('token', { node: 'planner', task_id: 't0', text: 'thinking' }),
    ev('token', { node: 'output', task_id: 't1', text: 'Hel' }),
    ev('token', { node: 'output', task_id: 't1', text: 'lo' }),
    ev('action', { id: 2, node: 'output', summary: 'o', next: [], usage: u() }),
    ...(status === 'failed' ? [ev('error', { code: 'boom', message: 'it broke' })] : []),
    ev('status', { status }),
    ev('done', { status }),
  ];
}
const u = () => ({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });

function encoding(o: Partial<LgStreamOptions> = {}): LangGraphEncoding {
  return new LangGraphEncoding({
    runId: RUN,
    threadId: THREAD,
    modes: ['values', 'updates', 'messages-tuple'],
    afterId: -1,
    liveAfter: null,
    metadata: 'numbered',
    waitFrom: null,
    final: async (status) => (status === 'succeeded' ? [{ event: 'values', data: { messages: [] } }] : []),
    ...o,
  });
}

async function run(
  e: LangGraphEncoding,
  events: RunEvent[],
): Promise<{ id?: string; event: string; data: unknown }[]> {
  let text = events.map((x) => e.encode(x)).join('');
  text += await e.close();
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((frame) => {
      const f: Record<string, string> = {};
      for (const line of frame.split('\n')) {
        const i = line.indexOf(': ');
        f[line.slice(0, i)] = line.slice(i + 2);
      }
      return {
        ...(f['id'] !== undefined ? { id: f['id'] } : {}),
        event: f['event'],
        data: JSON.parse(f['data']),
      };
    });
}

describe('LangGraphEncoding', () => {
  it('numbers metadata, message tuples of the answer node, updates and the final values from 0', async () => {
    const parts = await run(encoding(), log());
    expect(parts.map((p) => [p.id, p.event])).toEqual([
      ['0', 'metadata'],
      ['1', 'updates'],
      ['2', 'messages'],
      ['3', 'messages'],
      ['4', 'updates'],
      ['5', 'values'],
    ]);
    expect(parts[0].data).toEqual({ run_id: RUN, thread_id: THREAD, attempt: 1 });
    expect(parts[2].data).toEqual([
      expect.objectContaining({ type: 'AIMessageChunk', id: `run-${RUN}`, content: 'Hel' }),
      expect.objectContaining({ langgraph_node: 'output', run_id: RUN }),
    ]);
    expect(parts[1].data).toEqual({
      start: { action: { id: 1, summary: 's', next: ['planner'], usage: u() } },
    });
  });

  it('keeps the ids of every mode when some are not asked for, and skips up to Last-Event-ID', async () => {
    expect((await run(encoding({ modes: ['values'] }), log())).map((p) => p.id)).toEqual(['0', '5']);
    expect((await run(encoding({ afterId: 3 }), log())).map((p) => p.id)).toEqual(['4', '5']);
  });

  it('sends a failed run its error at the end, and a cancelled one nothing', async () => {
    const failed = await run(encoding(), log('failed'));
    expect(failed[failed.length - 1]).toEqual({
      id: '5',
      event: 'error',
      data: { error: 'boom', message: 'it broke' },
    });
    const cancelled = await run(encoding(), log('cancelled'));
    expect(cancelled.map((p) => p.event)).toEqual(['metadata', 'updates', 'messages', 'messages', 'updates']);
  });

  it('a join without Last-Event-ID sends only what comes after it, nothing for a finished run', async () => {
    const events = log();
    expect(
      await run(encoding({ liveAfter: events[events.length - 1].seq, metadata: 'none' }), events),
    ).toEqual([]);
    const live = await run(encoding({ liveAfter: events[3].seq, metadata: 'none' }), events);
    expect(live.map((p) => p.id)).toEqual(['3', '4', '5']);
  });

  it('ends at a question after the start (or at the one it waits on), as an __interrupt__ values part', () => {
    n = 0;
    const before = ev('waiting_for_user', { question: 'old?', input_schema: {} });
    const mark = ev('status', { status: 'running' });
    const after = ev('waiting_for_user', { question: 'name?', input_schema: { type: 'object' } });
    const resumed = encoding({
      liveAfter: mark.seq,
      metadata: 'none',
      waitFrom: { seq: mark.seq, inclusive: false },
    });
    expect(resumed.endsAt(before)).toBe(false);
    expect(resumed.endsAt(after)).toBe(true);
    expect(resumed.encode(before)).toBe('');
    expect(resumed.encode(after)).toContain('"__interrupt__":[{"id"');
    const joinWhileWaiting = encoding({
      liveAfter: after.seq,
      waitFrom: { seq: after.seq, inclusive: true },
    });
    expect(joinWhileWaiting.endsAt(after)).toBe(true);
    expect(joinWhileWaiting.endsAt(before)).toBe(false);
  });

  it('orders Redis stream ids numerically', () => {
    expect(compareSeq('1000-2', '1000-10')).toBeLessThan(0);
    expect(compareSeq('1001-0', '1000-10')).toBeGreaterThan(0);
    expect(compareSeq('0-3', '1000-1')).toBeLessThan(0);
  });
});
