// Runs as A2A tasks and their push configs, against the real Postgres: tenant and agent scoping,
// ListTasks' filters and keyset, and the push configs' claim / told / failed cycle.
import { SecretBox } from '@switchyard/config';
import { specDatabase } from '../testing/spec-database';
import { A2aRepository } from './a2a.repository';

jest.setTimeout(30_000);

const box = new SecretBox('ab'.repeat(32));

describe(A2aRepository.name, () => {
  const pg = specDatabase('a2a-repository-spec');

  it("reads the tenant's runs of the agent as tasks, filtered and paged newest first", async () => {
    const repo = new A2aRepository(pg.ds, box);
    const tenantId = await pg.tenant();
    const threadId = await pg.thread(tenantId);
    const otherThread = await pg.thread(tenantId);
    const run = (status: string, at: string, thread = threadId) =>
      pg.run(tenantId, thread, {
        status,
        input: JSON.stringify({ prompt: `p-${at}` }),
        created_at: new Date(`2026-01-01T00:00:0${at}Z`),
      });
    const r1 = await run('succeeded', '1');
    const r2 = await run('running', '2');
    const r3 = await run('failed', '3', otherThread);

    expect(await repo.taskRun(tenantId, 'default', r1)).toMatchObject({
      id: r1,
      thread_id: threadId,
      status: 'succeeded',
      prompt: 'p-1',
      waiting: null,
    });
    expect(await repo.taskRun(tenantId, 'other-agent', r1)).toBeNull();
    expect(await repo.taskRun(await pg.tenant(), 'default', r1)).toBeNull();
    expect(await repo.taskRunById(r1)).toMatchObject({ id: r1, prompt: 'p-1' });

    const ids = async (q: Parameters<A2aRepository['taskRuns']>[2]) =>
      (await repo.taskRuns(tenantId, 'default', q)).map((r) => r.id);
    const all = await repo.taskRuns(tenantId, 'default', { limit: 2 });
    expect(all.map((r) => r.id)).toEqual([r3, r2]);
    expect(all.map((r) => r.total)).toEqual([3, 3]);
    expect(await ids({ limit: 10, before: { atMicros: all[1].at_us, id: all[1].id } })).toEqual([r1]);
    expect(await ids({ limit: 10, statuses: [] })).toEqual([]);
    expect(await ids({ limit: 10, statuses: ['succeeded', 'failed'] })).toEqual([r3, r1]);
    expect(await ids({ limit: 10, contextId: threadId })).toEqual([r2, r1]);
    expect(await ids({ limit: 10, after: new Date('2026-01-01T00:00:02Z') })).toEqual([r3]);
    expect(await repo.taskRuns(await pg.tenant(), 'default', { limit: 10 })).toEqual([]);
  });

  it('keeps push configs per task and claims, tells and retries them', async () => {
    const repo = new A2aRepository(pg.ds, box);
    const tenantId = await pg.tenant();
    const runId = await pg.run(tenantId, await pg.thread(tenantId), { status: 'running' });
    const auth = { scheme: 'Bearer', credentials: 'secret' };
    await repo.savePush(tenantId, {
      id: 'b',
      taskId: runId,
      url: 'http://b',
      token: 't',
      authentication: auth,
    });
    await repo.savePush(tenantId, {
      id: 'a',
      taskId: runId,
      url: 'http://a',
      token: '',
      authentication: undefined,
    });
    expect(await repo.pushConfigs(tenantId, runId)).toEqual([
      { id: 'b', taskId: runId, url: 'http://b', token: 't', authentication: auth },
      { id: 'a', taskId: runId, url: 'http://a', token: '', authentication: undefined },
    ]);
    expect(await repo.pushConfigs(await pg.tenant(), runId)).toEqual([]);

    const mine = async () => (await repo.claimDue(1000, 60_000)).filter((d) => d.config.taskId === runId);
    const claimed = await mine();
    expect(claimed.map((d) => [d.config.id, d.state, d.attempts, d.tenantId]).sort()).toEqual([
      ['a', 'running', 0, tenantId],
      ['b', 'running', 0, tenantId],
    ]);
    expect(await mine()).toEqual([]); // leased

    await repo.pushFailed(runId, 'a', 'running', 'down', 0);
    const retried = await mine();
    expect(retried.map((d) => [d.config.id, d.attempts])).toEqual([['a', 1]]);
    await repo.pushed(runId, 'a', 'running');
    await pg.db
      .updateTable('a2a_push_configs')
      .set({ next_at: new Date(0) })
      .where('run_id', '=', runId)
      .execute();
    // Told of `running` (a) or given up on it (b): due again only once the run's state changes.
    await repo.pushFailed(runId, 'b', 'running', 'gone', null);
    await pg.db
      .updateTable('a2a_push_configs')
      .set({ next_at: new Date(0) })
      .where('run_id', '=', runId)
      .execute();
    expect(await mine()).toEqual([]);
    await pg.db.updateTable('runs').set({ status: 'succeeded' }).where('id', '=', runId).execute();
    expect((await mine()).map((d) => d.state)).toEqual(['succeeded', 'succeeded']);
    await repo.pushed(runId, 'a', 'succeeded');
    const [a] = await pg.db
      .selectFrom('a2a_push_configs')
      .select(['sent_state', 'attempts', 'last_error', 'next_at'])
      .where('run_id', '=', runId)
      .where('id', '=', 'a')
      .execute();
    expect(a).toEqual({ sent_state: 'succeeded', attempts: 0, last_error: null, next_at: Infinity });

    // Saved again: its secrets replaced and due afresh.
    await repo.savePush(tenantId, {
      id: 'a',
      taskId: runId,
      url: 'http://a2',
      token: 'n',
      authentication: auth,
    });
    expect((await mine()).map((d) => [d.config.id, d.config.url, d.config.token, d.attempts])).toEqual([
      ['a', 'http://a2', 'n', 0],
    ]);

    expect(await repo.deletePush(await pg.tenant(), runId, 'a')).toBe(false);
    expect(await repo.deletePush(tenantId, runId, 'a')).toBe(true);
    expect(await repo.deletePush(tenantId, runId, 'a')).toBe(false);
    expect((await repo.pushConfigs(tenantId, runId, 'b')).map((c) => c.id)).toEqual(['b']);
  });
});
