// What the streams and followers read of a run, against the real Postgres.
import { randomUUID } from 'node:crypto';
import { specDatabase } from '../testing/spec-database';
import { RunStreamsRepository } from './run-streams.repository';

jest.setTimeout(30_000);

describe(RunStreamsRepository.name, () => {
  const pg = specDatabase('run-streams-repository-spec');
  let repo: RunStreamsRepository;
  let tenantId: string;
  let threadId: string;
  const run = (columns: Parameters<typeof pg.run>[2] = {}) => pg.run(tenantId, threadId, columns);

  beforeAll(async () => {
    repo = new RunStreamsRepository(pg.ds);
    tenantId = await pg.tenant();
    threadId = await pg.thread(tenantId);
  });

  it('reads the status and the human task a waiting run waits on', async () => {
    const waiting = await run({
      status: 'waiting',
      waiting: JSON.stringify({ task_id: 'task-1', question: 'ok?', input_schema: {} }),
    });
    const running = await run();
    expect(await repo.status(waiting)).toEqual({ status: 'waiting', waiting_task: 'task-1' });
    expect(await repo.status(running)).toEqual({ status: 'running', waiting_task: null });
    expect(await repo.status(randomUUID())).toBeUndefined();
  });

  it('names the ended runs among those asked about, in one statement', async () => {
    const done = await run({ status: 'succeeded' });
    const failed = await run({ status: 'failed' });
    const live = await run({ status: 'queued' });
    expect((await repo.ended([done, failed, live, randomUUID()])).sort()).toEqual([done, failed].sort());
    expect(await repo.ended([])).toEqual([]);
  });

  it('reads what a rebuilt stream needs: status, wait, error and times', async () => {
    const id = await run({
      status: 'failed',
      error: JSON.stringify({ code: 'node_failed', message: 'boom' }),
      started_at: new Date('2026-01-01T00:00:01Z'),
      finished_at: new Date('2026-01-01T00:00:02Z'),
    });
    const row = await repo.forRebuild(id);
    expect(row).toMatchObject({
      status: 'failed',
      waiting: null,
      error: { code: 'node_failed', message: 'boom' },
      started_at: new Date('2026-01-01T00:00:01Z'),
      finished_at: new Date('2026-01-01T00:00:02Z'),
    });
    expect(row?.created_at).toBeInstanceOf(Date);
    expect(await repo.forRebuild(randomUUID())).toBeUndefined();
  });

  it("reads a RAGFlow run's context and end, and its last graph component's outputs (skipped ones left out)", async () => {
    const id = await run({
      status: 'succeeded',
      input: JSON.stringify({ inputs: { city: 'Oslo' } }),
      agent_config: JSON.stringify({ kind: 'graph', dsl: { components: {} } }),
      output: JSON.stringify({ answer: 'sunny' }),
    });
    expect(await repo.ragflowContext(id)).toEqual({
      thread_id: threadId,
      inputs: { city: 'Oslo' },
      kind: 'graph',
      dsl: { components: {} },
    });
    expect(await repo.ragflowEnd(id)).toMatchObject({
      status: 'succeeded',
      answer: 'sunny',
      started_at: null,
    });
    expect(await repo.lastGraphOutputs(id)).toBeUndefined();
    const delta = (version: number, node: string, result: Record<string, unknown>) => ({
      run_id: id,
      thread_id: threadId,
      task_id: randomUUID(),
      node,
      version,
      delta: JSON.stringify({ action: { node, result } }),
    });
    await pg.db
      .insertInto('state_deltas')
      .values([
        delta(1, 'graph.Retrieval:0', { outputs: { chunks: 2 } }),
        delta(2, 'graph.Answer:0', { outputs: { content: 'sunny' } }),
        delta(3, 'graph.Message:0', { skipped: true, outputs: { content: 'never' } }),
        delta(4, 'planner', { outputs: { plan: 'x' } }),
      ])
      .execute();
    expect(await repo.lastGraphOutputs(id)).toEqual({ content: 'sunny' });
  });
});
