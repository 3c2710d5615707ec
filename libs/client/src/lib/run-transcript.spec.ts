import type { EventPayload, EventType, RunEvent } from '@switchyard/contracts';
import { RunTranscript } from './run-transcript';

let n = 0;
const ev = <T extends EventType>(
  event_type: T,
  payload: EventPayload<T>,
  seq = `1000-${n++}`,
): RunEvent<T> => ({
  run_id: 'r1',
  seq,
  event_type,
  payload,
  ts: 0,
});
const token = (text: string, node = 'output', task_id = 'out-1') => ev('token', { node, task_id, text });

/** A run's events: planning, a step, the answer streamed in three tokens, the end. */
function run(): RunEvent[] {
  n = 0;
  return [
    ev('status', { status: 'running' }),
    ev('node_started', { node: 'planner', task_id: 'p-1', attempt: 1 }),
    token('thinking…', 'planner', 'p-1'),
    ev('action', {
      id: 3,
      node: 'planner',
      summary: 'planned',
      next: ['output'],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    }),
    ev('node_started', { node: 'output', task_id: 'out-1', attempt: 1 }),
    token('The '),
    token('answer '),
    token('is 14.'),
    ev('action', {
      id: 4,
      node: 'output',
      summary: 'answered',
      next: [],
      usage: { prompt_tokens: 1, completion_tokens: 3, total_tokens: 4 },
    }),
    ev('status', { status: 'succeeded' }),
    ev('done', { status: 'succeeded' }),
  ];
}

describe(RunTranscript.name, () => {
  it("keeps the answer nodes' text, the steps and the end", () => {
    const t = new RunTranscript('r1');
    for (const e of run()) {
      expect(t.add(e)).toBe(true);
    }
    expect(t.answer).toBe('The answer is 14.');
    expect(t.steps.map((s) => s.node)).toEqual(['planner', 'output']);
    expect(t.running).toEqual([]);
    expect([t.status, t.ended]).toEqual(['succeeded', true]);
  });

  it('resumes from a snapshot and skips what it had: a replay from the start repeats nothing', () => {
    const events = run();
    const first = new RunTranscript('r1');
    events.slice(0, 6).forEach((e) => first.add(e));
    expect(first.answer).toBe('The ');
    // Kept as JSON (a page's localStorage), taken up again after a reload.
    const kept = JSON.parse(JSON.stringify(first.snapshot()));
    const again = new RunTranscript('r1', kept);
    expect(again.lastSeq).toBe(events[5].seq);
    expect(again.running).toEqual([{ node: 'output', task_id: 'out-1' }]);
    // The stream sent again from an earlier point (or from the start): each event counts once.
    const taken = events.map((e) => again.add(e));
    expect(taken).toEqual(events.map((_, i) => i > 5));
    expect(again.answer).toBe('The answer is 14.');
    expect(again.steps).toHaveLength(2);
  });

  it('orders seqs as numbers, not as text', () => {
    const t = new RunTranscript('r1');
    expect(t.add(ev('token', { node: 'output', task_id: 'o', text: 'a' }, '1000-9'))).toBe(true);
    expect(t.add(ev('token', { node: 'output', task_id: 'o', text: 'b' }, '1000-10'))).toBe(true);
    expect(t.add(ev('token', { node: 'output', task_id: 'o', text: 'c' }, '999-11'))).toBe(false);
    expect(t.answer).toBe('ab');
  });

  it('shows the question while the run waits and drops it when the run goes on', () => {
    const t = new RunTranscript('r1');
    t.add(ev('waiting_for_user', { question: 'Your name?', input_schema: { type: 'string' } }));
    expect([t.status, t.waiting?.question]).toEqual(['waiting', 'Your name?']);
    t.add(ev('status', { status: 'running' }));
    expect(t.waiting).toBeNull();
  });

  it('starts over on a reset (the gateway replays a history it lost)', () => {
    const t = new RunTranscript('r1');
    run()
      .slice(0, 7)
      .forEach((e) => t.add(e));
    expect(t.add({ run_id: 'r1', event_type: 'reset', payload: { reason: 'lost' }, ts: 0 })).toBe(true);
    expect([t.answer, t.lastSeq, t.steps.length]).toEqual(['', null, 0]);
    run().forEach((e) => t.add(e));
    expect(t.answer).toBe('The answer is 14.');
  });

  it("refuses another run's snapshot", () => {
    const s = new RunTranscript('r1').snapshot();
    expect(() => new RunTranscript('r2', s)).toThrow('the snapshot is of run r1, not r2');
  });
});
