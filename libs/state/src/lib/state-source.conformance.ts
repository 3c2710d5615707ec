import { randomUUID } from 'node:crypto';
import type { Action, CommittedDelta, RuntimeState } from '@switchyard/contracts';
import { applyDelta, emptyState, openTurnPatch } from './apply-delta';
import type { StateSource } from './state-cache';

/** A StateSource under test, with a way to write a thread's committed log into it. */
export interface StateSourceUnderTest {
  source: StateSource;
  /**
   * Writes the thread's log (versions 1…n); `snapshots` are states to keep as snapshots too
   * (a source that keeps none ignores them: the answers must not change either way).
   */
  write(threadId: string, log: CommittedDelta[], snapshots: RuntimeState[]): Promise<void>;
  /** Frees what `make` opened (a connection pool). */
  close?(): Promise<void>;
}

const T0 = '2026-01-01T00:00:00.000Z';

function action(id: number, node: string, extra: Partial<Action> = {}): Action {
  return {
    id,
    node,
    preparation: `${node} prepared`,
    summary: `${node} #${id}`,
    result: { id },
    usage: { prompt_tokens: id, completion_tokens: 1, total_tokens: id + 1 },
    next: [],
    started_at: T0,
    finished_at: T0,
    attempt: 1,
    ...extra,
  };
}

/** Two turns as the orchestrator commits them: each a start delta, then node deltas. */
function twoTurns(): CommittedDelta[] {
  const log: CommittedDelta[] = [];
  const add = (node: string, patch?: CommittedDelta['patch']) =>
    log.push({ action: action(log.length + 1, node), ...(patch ? { patch } : {}) });
  add('start', openTurnPatch({ run_id: randomUUID(), turn: 0, prompt: 'What is 6 * 7?' }));
  add('intake', [{ op: 'replace', path: '/scenario', value: 'math' }]);
  add('planner', [
    { op: 'add', path: '/todos/0/-', value: { id: 't1', task: 'compute', status: 'pending' } },
  ]);
  add('calculator');
  add('output', [
    { op: 'add', path: '/chat_history/-', value: { role: 'assistant', content: '42 ✓ "naïve"' } },
  ]);
  add('start', openTurnPatch({ run_id: randomUUID(), turn: 1, prompt: 'And 42 / 7?' }));
  add('output', [{ op: 'add', path: '/chat_history/-', value: { role: 'assistant', content: '6' } }]);
  return log;
}

const fold = (threadId: string, log: CommittedDelta[]) =>
  log.reduce(applyDelta, emptyState(threadId, threadId));

/**
 * For specs (it calls jest's describe/it): the StateSource contract, one suite for every implementation (as langgraphjs runs one spec
 * against every checkpointer): `load(v)` is the log folded to v — with or without snapshots —
 * `deltasBetween` is exactly (after, upto] in order, threads are apart, and a version past the
 * log is refused rather than answered with another state.
 */
export function stateSourceConformance(name: string, make: () => Promise<StateSourceUnderTest>): void {
  describe(`${name} (the StateSource contract)`, () => {
    let s: StateSourceUnderTest;
    const log = twoTurns();
    const plain = randomUUID();
    const snapshotted = randomUUID();
    const other = randomUUID();
    const otherLog = twoTurns().slice(0, 3);

    beforeAll(async () => {
      s = await make();
      await s.write(plain, log, []);
      // Snapshots at the end of the first turn and at the last version.
      await s.write(snapshotted, log, [fold(snapshotted, log.slice(0, 5)), fold(snapshotted, log)]);
      await s.write(other, otherLog, []);
    });

    afterAll(async () => {
      await s?.close?.();
    });

    it('loads the state at every version: the log folded that far, snapshots or not', async () => {
      for (let v = 0; v <= log.length; v++) {
        expect(await s.source.load(plain, v)).toEqual(fold(plain, log.slice(0, v)));
        expect(await s.source.load(snapshotted, v)).toEqual(fold(snapshotted, log.slice(0, v)));
      }
    });

    it('gives exactly the deltas after one version up to another, in order', async () => {
      expect(await s.source.deltasBetween(plain, 0, log.length)).toEqual(log);
      expect(await s.source.deltasBetween(snapshotted, 2, 5)).toEqual(log.slice(2, 5));
      expect(await s.source.deltasBetween(plain, 4, 4)).toEqual([]);
      expect(await s.source.deltasBetween(plain, 5, 3)).toEqual([]);
      // Past the end: what there is.
      expect(await s.source.deltasBetween(plain, 5, 99)).toEqual(log.slice(5));
    });

    it("keeps threads apart: one thread's log is not another's", async () => {
      expect(await s.source.load(other, 3)).toEqual(fold(other, otherLog));
      expect(await s.source.deltasBetween(other, 0, 99)).toEqual(otherLog);
      expect(await s.source.deltasBetween(randomUUID(), 0, 99)).toEqual([]);
    });

    it('refuses a version past the log instead of answering another state', async () => {
      await expect(s.source.load(plain, log.length + 1)).rejects.toThrow(/version/);
      await expect(s.source.load(other, 4)).rejects.toThrow(/version/);
    });
  });
}
