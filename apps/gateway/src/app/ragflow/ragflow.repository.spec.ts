// RAGFlow's agent sessions over threads, against the real Postgres.
import { specDatabase } from '../testing/spec-database';
import { RagflowRepository } from './ragflow.repository';

jest.setTimeout(30_000);

describe(RagflowRepository.name, () => {
  const pg = specDatabase('ragflow-repository-spec');
  let repo: RagflowRepository;

  beforeAll(() => {
    repo = new RagflowRepository(pg.ds);
  });

  it("pages the agent's sessions by creation or last activity, with the total, per user", async () => {
    const t = await pg.tenant();
    const a = await repo.createSession(t, 'default', { name: 'a', user_id: 'u1', inputs: {} });
    const b = await repo.createSession(t, 'default', { name: 'b', user_id: 'u2', inputs: {} });
    expect(a).toMatchObject({
      agent_id: 'default',
      total: 1,
      metadata: { ragflow: { name: 'a', user_id: 'u1' } },
    });
    expect(a.updated_at).toEqual(a.created_at);
    await pg.db
      .updateTable('threads')
      .set({ created_at: new Date('2026-01-01T00:00:00Z') })
      .where('id', '=', a.id)
      .execute();
    await pg.db
      .updateTable('threads')
      .set({ created_at: new Date('2026-01-02T00:00:00Z') })
      .where('id', '=', b.id)
      .execute();
    // a's run makes it the latest active.
    await pg.run(t, a.id, {
      status: 'waiting',
      created_at: new Date('2026-01-03T00:00:00Z'),
      input: JSON.stringify({ prompt: 'q?' }),
      waiting: JSON.stringify({ question: 'who?' }),
    });
    const page = { orderBy: 'create_time' as const, desc: true, page: 1, size: 10 };
    const byCreation = await repo.sessions(t, 'default', page);
    expect(byCreation.map((s) => [s.id, s.total])).toEqual([
      [b.id, 2],
      [a.id, 2],
    ]);
    const byActivity = await repo.sessions(t, 'default', { ...page, orderBy: 'update_time' });
    expect(byActivity.map((s) => s.id)).toEqual([a.id, b.id]);
    expect(byActivity[0].updated_at).toEqual(new Date('2026-01-03T00:00:00Z'));
    const second = await repo.sessions(t, 'default', { ...page, size: 1, page: 2 });
    expect(second.map((s) => [s.id, s.total])).toEqual([[a.id, 2]]);
    expect((await repo.sessions(t, 'default', { ...page, userId: 'u2' })).map((s) => s.id)).toEqual([b.id]);
    expect(await repo.session(await pg.tenant(), 'default', a.id)).toBeNull();
    expect((await repo.turns([a.id, b.id])).map((r) => [r.prompt, r.answer, r.question])).toEqual([
      ['q?', null, 'who?'],
    ]);
    expect(await repo.waitingRun(a.id)).toMatchObject({ waiting: { question: 'who?' } });
    expect(await repo.waitingRun(b.id)).toBeNull();
  });
});
