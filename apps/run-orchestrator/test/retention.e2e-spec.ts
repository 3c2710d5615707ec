import { TestStack, waitFor } from '@switchyard/testing';

// Retention against the real stack: finished runs lose their bookkeeping, an idle thread's old
// history is compacted into a snapshot, snapshots stay bounded — and the thread goes on with its
// whole state (chat history, memory) as if nothing had been pruned.

let stack: TestStack;

beforeAll(async () => {
  stack = await TestStack.start({
    script: 'apps/run-orchestrator/test/fixtures/durability.script.json',
    env: {
      // ~0.4 s: what finished before that is "old".
      SWITCHYARD_RETENTION_HOURS: '0.0001',
      SWITCHYARD_HISTORY_RETENTION_HOURS: '0.0001',
      SWITCHYARD_RETENTION_INTERVAL_MS: '300',
      SWITCHYARD_SNAPSHOT_EVERY: '10',
      SWITCHYARD_SNAPSHOT_KEEP: '2',
    },
  });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

async function turn(prompt: string, threadId?: string): Promise<{ run_id: string; thread_id: string }> {
  const res = await stack.api('POST', '/v1/runs', {
    input: { prompt },
    ...(threadId ? { thread_id: threadId } : {}),
  });
  expect(res.status).toBe(202);
  await waitFor(`"${prompt}" to succeed`, async () => {
    const run = (await stack.api('GET', `/v1/runs/${res.body.run_id}`)).body;
    expect(['queued', 'running', 'succeeded']).toContain(run.status);
    return run.status === 'succeeded';
  });
  return res.body;
}

const count = async (sql: string, params: unknown[]) =>
  Number((await stack.sql<{ n: string }>(sql, params))[0].n);

it('prunes finished runs, compacts an idle thread, keeps snapshots bounded; the thread goes on whole', async () => {
  const first = await turn('what is 2+3*4?');
  const second = await turn('what is 6*7?', first.thread_id);
  await turn('what is 5*5?', first.thread_id);
  const runIds = (
    await stack.sql<{ id: string }>('SELECT id FROM runs WHERE thread_id = $1', [first.thread_id])
  ).map((r) => r.id);
  expect(runIds).toHaveLength(3);

  await waitFor('the retention pass', async () => {
    const tasks = await count('SELECT count(*) AS n FROM run_tasks WHERE run_id = ANY($1::uuid[])', [runIds]);
    const deltas = await count('SELECT count(*) AS n FROM state_deltas WHERE thread_id = $1', [
      first.thread_id,
    ]);
    return tasks === 0 && deltas === 0;
  });
  const snapshots = await stack.sql<{ version: number }>(
    'SELECT version FROM state_snapshots WHERE thread_id = $1 ORDER BY version',
    [first.thread_id],
  );
  const [thread] = await stack.sql<{ version: number }>('SELECT version FROM threads WHERE id = $1', [
    first.thread_id,
  ]);
  // Everything up to the thread's version is in one snapshot now (at most the bound besides).
  expect(snapshots.map((s) => s.version)).toContain(thread.version);
  expect(snapshots.length).toBeLessThanOrEqual(2);

  // The pruned runs still answer; their actions went with the history.
  const old = await stack.api('GET', `/v1/runs/${second.run_id}`);
  expect(old.body.status).toBe('succeeded');
  expect(old.body.output.answer).toContain('42');

  // The thread carries on from the compacted state: its chat history and turns are all there.
  const fourth = await turn('what is 3*3?', first.thread_id);
  const state = (await stack.api('GET', `/v1/threads/${fourth.thread_id}/state`)).body;
  expect(state.prompts).toEqual(['what is 2+3*4?', 'what is 6*7?', 'what is 5*5?', 'what is 3*3?']);
  expect(state.chat_history).toHaveLength(8);
  expect(state.turn).toBe(3);
}, 120_000);
