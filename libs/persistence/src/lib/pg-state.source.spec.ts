// Integration test against the real Postgres (DESIGN.md §3: the delta log and snapshots hold the truth).
// Uses the dedicated database `switchyard_test` on the server named by DATABASE_URL (default: local).
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import {
  type Action,
  type CommittedDelta,
  type JsonPatchOperation,
  type RuntimeState,
  ZERO_USAGE,
} from '@switchyard/contracts';
import { StateCache, applyDelta, emptyState, openTurnPatch, stateSourceConformance } from '@switchyard/state';
import { createDataSource, ensureDatabase, runMigrationsLocked } from './data-source';
import { PgStateSource } from './pg-state.source';
import { testDatabaseUrl } from '@switchyard/testing';

jest.setTimeout(30_000);

const NOW = '2024-05-01T10:00:00.000Z';

interface LogEntry {
  task_id: string;
  run_id: string;
  delta: CommittedDelta;
}

/**
 * A thread of two turns built as the orchestrator builds it: each turn opens with a `start` action
 * (task id = run id) whose patch is openTurnPatch, then node deltas with ids = their version.
 */
function buildThread(threadId: string, runs: [string, string]) {
  const entries: LogEntry[] = [];
  const states: RuntimeState[] = [emptyState(threadId, threadId)];
  const push = (
    runId: string,
    taskId: string,
    node: string,
    patch?: JsonPatchOperation[],
    extra?: Partial<Action>,
  ) => {
    const prev = states[states.length - 1];
    const action: Action = {
      id: prev.version + 1,
      node,
      preparation: `${node} prepared`,
      summary: `${node} did its part`,
      result: { node },
      usage: { ...ZERO_USAGE },
      next: [],
      started_at: NOW,
      finished_at: NOW,
      attempt: 1,
      ...extra,
    };
    const delta: CommittedDelta = { action, ...(patch ? { patch } : {}) };
    states.push(applyDelta(prev, delta));
    entries.push({ task_id: taskId, run_id: runId, delta });
  };
  const start = (runId: string, prompt: string, origin_files?: RuntimeState['origin_files']) => {
    const prev = states[states.length - 1];
    push(
      runId,
      runId,
      'start',
      openTurnPatch({ run_id: runId, turn: prev.action_history.length, prompt, origin_files }),
      { next: ['intake'], result: { prompt } },
    );
  };
  const u = (p: number, c: number) => ({ prompt_tokens: p, completion_tokens: c, total_tokens: p + c });

  const [run0, run1] = runs;
  start(run0, 'What is 6 * 7? See the sheet.', [{ name: 'sheet.csv', type: 'text/csv' }]);
  push(
    run0,
    randomUUID(),
    'intake',
    [
      { op: 'replace', path: '/scenario', value: 'math' },
      { op: 'replace', path: '/task_goals/0', value: 'multiply' },
    ],
    { usage: u(30, 5), next: ['planner'] },
  );
  push(
    run0,
    randomUUID(),
    'planner',
    [{ op: 'add', path: '/todos/0/-', value: { id: 't1', task: 'compute 6*7', status: 'pending' } }],
    {
      usage: u(120, 40),
      next: ['calculator'],
      result: { content: '', tool_calls: [{ id: 'c1', name: 'calculator', args: { expression: '6*7' } }] },
    },
  );
  push(
    run0,
    randomUUID(),
    'calculator',
    [{ op: 'add', path: '/preprocessed_files/tables/sheet.csv', value: { rows: 1, cols: 2 } }],
    { result: { value: 42 }, relevance: 1, next: ['reflection'] },
  );
  push(run0, randomUUID(), 'reflection', [{ op: 'replace', path: '/todos/0/0/status', value: 'completed' }], {
    usage: u(50, 10),
    next: ['planner'],
  });
  push(run0, randomUUID(), 'planner', undefined, { usage: u(80, 8), next: ['output'] });
  push(
    run0,
    randomUUID(),
    'output',
    [{ op: 'add', path: '/chat_history/-', value: { role: 'assistant', content: '6 * 7 = 42' } }],
    { usage: u(60, 12) },
  );
  start(run1, 'And 42 / 7?');
  push(run1, randomUUID(), 'planner', [{ op: 'replace', path: '/task_goals/1', value: 'divide' }], {
    usage: u(90, 20),
    next: ['output'],
    error: { code: 'none', message: 'kept as data' },
  });
  push(
    run1,
    randomUUID(),
    'output',
    [
      { op: 'add', path: '/chat_history/-', value: { role: 'assistant', content: '6' } },
      { op: 'add', path: '/user_context/unicode', value: 'naïve ✓ "quoted" \\ back' },
    ],
    { usage: u(40, 3) },
  );
  return { entries, states };
}

/** Inserts the entries as versions fromVersion, fromVersion + 1, …; `newestFirst` writes them in reverse. */
async function insertDeltas(
  ds: DataSource,
  threadId: string,
  entries: LogEntry[],
  fromVersion = 1,
  newestFirst = false,
): Promise<void> {
  const numbered = [...entries.entries()];
  for (const [i, e] of newestFirst ? numbered.reverse() : numbered) {
    await ds.query(
      'INSERT INTO state_deltas (thread_id, version, task_id, run_id, node, delta) VALUES ($1, $2, $3, $4, $5, $6)',
      [threadId, fromVersion + i, e.task_id, e.run_id, e.delta.action.node, JSON.stringify(e.delta)],
    );
  }
}

async function insertSnapshot(ds: DataSource, state: RuntimeState): Promise<void> {
  await ds.query('INSERT INTO state_snapshots (thread_id, version, state) VALUES ($1, $2, $3)', [
    state.thread_id,
    state.version,
    JSON.stringify(state),
  ]);
}

const versions = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe(PgStateSource.name, () => {
  let ds: DataSource | undefined;
  let source: PgStateSource;
  const threads: string[] = [];

  const newThread = () => {
    const threadId = randomUUID();
    threads.push(threadId);
    return { threadId, runs: [randomUUID(), randomUUID()] as [string, string] };
  };

  beforeAll(async () => {
    const url = testDatabaseUrl();
    await ensureDatabase(url);
    ds = await createDataSource(url, { poolSize: 4, name: 'switchyard-test' });
    await runMigrationsLocked(ds);
    source = new PgStateSource(ds);
  });

  afterAll(async () => {
    if (!ds) {
      return;
    }
    try {
      if (threads.length) {
        await ds.query('DELETE FROM state_deltas WHERE thread_id = ANY($1::uuid[])', [threads]);
        await ds.query('DELETE FROM state_snapshots WHERE thread_id = ANY($1::uuid[])', [threads]);
      }
    } finally {
      await ds.destroy().catch(() => undefined);
    }
  });

  describe('a thread with deltas only', () => {
    const { threadId, runs } = newThread();
    const { entries, states } = buildThread(threadId, runs);
    const last = entries.length;

    beforeAll(async () => {
      // Newest first, so that the physical row order is not the version order.
      await insertDeltas(ds!, threadId, entries, 1, true);
    });

    it.each(versions(0, last))('loads version %i as the fold of the first deltas', async (v) => {
      const state = await source.load(threadId, v);

      expect(state.version).toBe(v);
      expect(state).toEqual(states[v]);
    });

    it('loads a state that kept every turn (sanity check of the fixture)', async () => {
      const state = await source.load(threadId, last);

      expect(state.turn).toBe(1);
      expect(state.run_id).toBe(runs[1]);
      expect(state.action_history.map((t) => t.length)).toEqual([7, 3]);
      expect(state.usage[0].total_tokens).toBe(415);
      expect(state.user_context).toEqual({ unicode: 'naïve ✓ "quoted" \\ back' });
    });

    it('refuses a version beyond the log, saying where the log ends', async () => {
      await expect(source.load(threadId, last + 1)).rejects.toThrow(
        `thread ${threadId} has no state at version ${last + 1} (log ends at ${last})`,
      );
    });

    it('returns the empty state for version 0 of an unknown thread, and refuses version 1', async () => {
      const unknown = randomUUID();

      expect(await source.load(unknown, 0)).toEqual(emptyState(unknown, unknown));
      await expect(source.load(unknown, 1)).rejects.toThrow('log ends at 0');
    });

    it.each([
      [0, 3],
      [2, 5],
      [5, 6],
      [last - 1, last + 5],
      [0, last],
    ])('returns the deltas after %i up to %i, in order', async (after, upto) => {
      const deltas = await source.deltasBetween(threadId, after, upto);

      expect(deltas).toEqual(entries.slice(after, upto).map((e) => e.delta));
      expect(deltas.map((d) => d.action.id)).toEqual(versions(after + 1, Math.min(upto, last)));
    });

    it('returns the deltas in version order whatever plan Postgres picks (a sequential scan here)', async () => {
      const deltas = await ds!.transaction(async (m) => {
        await m.query('SET LOCAL enable_indexscan = off');
        await m.query('SET LOCAL enable_bitmapscan = off');
        await m.query('SET LOCAL enable_indexonlyscan = off');
        return source.deltasBetween(threadId, 0, last, m);
      });

      expect(deltas.map((d) => d.action.id)).toEqual(versions(1, last));
    });

    it.each([
      [4, 4],
      [6, 2],
      [last, last + 3],
    ])('returns no deltas after %i up to %i', async (after, upto) => {
      expect(await source.deltasBetween(threadId, after, upto)).toEqual([]);
    });

    it('lists the actions of each run in order, and none of an unknown run', async () => {
      const ofRun = (runId: string) => entries.filter((e) => e.run_id === runId).map((e) => e.delta.action);

      const run0 = await source.actionsOfRun(runs[0]);
      const run1 = await source.actionsOfRun(runs[1]);

      expect(run0).toEqual(ofRun(runs[0]));
      expect(run0.map((a) => a.node)).toEqual([
        'start',
        'intake',
        'planner',
        'calculator',
        'reflection',
        'planner',
        'output',
      ]);
      expect(run1).toEqual(ofRun(runs[1]));
      expect(run1.map((a) => a.id)).toEqual([8, 9, 10]);
      expect(await source.actionsOfRun(randomUUID())).toEqual([]);
    });

    it('rejects a second row with the same task_id (a redelivered delta is applied once)', async () => {
      const duplicate = entries[2];

      const insert = ds!.query(
        'INSERT INTO state_deltas (thread_id, version, task_id, run_id, node, delta) VALUES ($1, $2, $3, $4, $5, $6)',
        [threadId, last + 1, duplicate.task_id, duplicate.run_id, 'planner', JSON.stringify(duplicate.delta)],
      );

      await expect(insert).rejects.toMatchObject({ code: '23505', constraint: 'state_deltas_task_id_key' });
      await expect(source.load(threadId, last + 1)).rejects.toThrow(`log ends at ${last}`);
    });

    it('rejects a second row for the same thread version', async () => {
      const insert = ds!.query(
        'INSERT INTO state_deltas (thread_id, version, task_id, run_id, node, delta) VALUES ($1, $2, $3, $4, $5, $6)',
        [threadId, 3, randomUUID(), runs[0], 'planner', JSON.stringify(entries[2].delta)],
      );

      await expect(insert).rejects.toMatchObject({ code: '23505', constraint: 'state_deltas_pkey' });
    });

    it('reads uncommitted rows through the transaction manager it is given', async () => {
      const extra: CommittedDelta = {
        ...entries[last - 1].delta,
        action: { ...entries[last - 1].delta.action, id: last + 1, summary: 'in flight' },
        patch: [{ op: 'replace', path: '/output_style', value: 'terse' }],
      };
      const rollback = new Error('rollback');
      let inside: RuntimeState | undefined;

      await expect(
        ds!.transaction(async (m) => {
          await m.query(
            'INSERT INTO state_deltas (thread_id, version, task_id, run_id, node, delta) VALUES ($1, $2, $3, $4, $5, $6)',
            [threadId, last + 1, randomUUID(), runs[1], 'output', JSON.stringify(extra)],
          );
          inside = await source.load(threadId, last + 1, m);
          throw rollback;
        }),
      ).rejects.toBe(rollback);

      expect(inside).toEqual(applyDelta(states[last], extra));
      expect(inside?.output_style).toBe('terse');
      await expect(source.load(threadId, last + 1)).rejects.toThrow(`log ends at ${last}`);
    });
  });

  describe('a thread with snapshots', () => {
    const { threadId, runs } = newThread();
    const { entries, states } = buildThread(threadId, runs);
    const last = entries.length;

    beforeAll(async () => {
      await insertDeltas(ds!, threadId, entries);
      await insertSnapshot(ds!, states[3]);
      await insertSnapshot(ds!, states[7]);
      // The snapshot at 3 must stand in for the deltas up to 3.
      await ds!.query('DELETE FROM state_deltas WHERE thread_id = $1 AND version <= 3', [threadId]);
    });

    it.each(versions(3, last))('loads version %i from the snapshot and the deltas after it', async (v) => {
      expect(await source.load(threadId, v)).toEqual(states[v]);
    });

    it('cannot load a version below the earliest snapshot once its deltas are gone', async () => {
      await expect(source.load(threadId, 2)).rejects.toThrow('log ends at 0');
    });

    it('uses the latest snapshot at or below the version, and never one above it', async () => {
      await ds!.query('DELETE FROM state_deltas WHERE thread_id = $1 AND version <= 7', [threadId]);

      // At or above 7: the snapshot at 7 (the one at 3 would now miss deltas 4..7).
      for (const v of versions(7, last)) {
        expect(await source.load(threadId, v)).toEqual(states[v]);
      }
      // Between the snapshots: the one at 3 (not the one at 7), whose deltas 4..5 are gone.
      await expect(source.load(threadId, 5)).rejects.toThrow('log ends at 3');
    });
  });

  describe('the StateCache over PgStateSource', () => {
    const { threadId, runs } = newThread();
    const { entries, states } = buildThread(threadId, runs);
    const last = entries.length;

    beforeAll(async () => {
      await insertDeltas(ds!, threadId, entries.slice(0, 4));
    });

    it('loads on a miss, then catches up with one query after new rows are appended', async () => {
      const cache = new StateCache(source, 10);

      expect(await cache.get(threadId, 4)).toEqual(states[4]);
      expect(cache.stats).toEqual({ hits: 0, catchUps: 0, misses: 1 });

      await insertDeltas(ds!, threadId, entries.slice(4), 5);
      const query = jest.spyOn(ds!.manager, 'query');
      const load = jest.spyOn(source, 'load');
      try {
        const state = await cache.get(threadId, last);

        expect(state).toEqual(states[last]);
        expect(cache.stats).toEqual({ hits: 0, catchUps: 1, misses: 1 });
        expect(query).toHaveBeenCalledTimes(1);
        expect(query.mock.calls[0][1]).toEqual([threadId, 4, last]);
        expect(load).not.toHaveBeenCalled();

        expect(await cache.get(threadId, last)).toBe(state);
        expect(query).toHaveBeenCalledTimes(1);
        expect(cache.stats.hits).toBe(1);
      } finally {
        query.mockRestore();
        load.mockRestore();
      }
    });
  });
});

// The contract every StateSource keeps (the in-memory one passes the same suite).
stateSourceConformance('PgStateSource', async () => {
  const url = testDatabaseUrl();
  await ensureDatabase(url);
  const ds = await createDataSource(url, { poolSize: 2, name: 'switchyard-conformance' });
  await runMigrationsLocked(ds);
  const threads: string[] = [];
  return {
    source: new PgStateSource(ds),
    write: async (threadId, log, snapshots) => {
      threads.push(threadId);
      await insertDeltas(
        ds,
        threadId,
        log.map((delta) => ({ task_id: randomUUID(), run_id: randomUUID(), delta })),
      );
      for (const state of snapshots) {
        await insertSnapshot(ds, state);
      }
    },
    close: async () => {
      await ds.query('DELETE FROM state_deltas WHERE thread_id = ANY($1::uuid[])', [threads]);
      await ds.query('DELETE FROM state_snapshots WHERE thread_id = ANY($1::uuid[])', [threads]);
      await ds.destroy();
    },
  };
});
