// The thread resources' statements, against the real Postgres.
import { randomUUID } from 'node:crypto';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { specDatabase } from '../testing/spec-database';
import { ThreadsRepository } from './threads.repository';

jest.setTimeout(30_000);

describe(ThreadsRepository.name, () => {
  const pg = specDatabase('threads-repository-spec');
  let repo: ThreadsRepository;

  beforeAll(() => {
    repo = new ThreadsRepository(pg.ds);
  });

  it("pages the tenant's threads newest first, the cursor naming the next page", async () => {
    const t = await pg.tenant();
    const ids: string[] = [];
    for (const day of ['1', '2', '3']) {
      const id = await pg.thread(t);
      await pg.db
        .updateTable('threads')
        .set({ created_at: new Date(`2026-01-0${day}T00:00:00Z`) })
        .where('id', '=', id)
        .execute();
      ids.push(id);
    }
    await pg.thread(await pg.tenant());
    const first = await repo.list(t, { limit: 2 });
    expect(first.threads.map((x) => x.id)).toEqual([ids[2], ids[1]]);
    expect(first.next_cursor).toBe(`${Date.parse('2026-01-02T00:00:00Z') * 1000}_${ids[1]}`);
    const second = await repo.list(t, { limit: 2, cursor: first.next_cursor ?? undefined });
    expect(second).toEqual({
      threads: [expect.objectContaining({ id: ids[0], turns: 0 })],
      next_cursor: null,
    });
    const since = await repo.list(t, {
      limit: 5,
      since: '2026-01-02T00:00:00Z',
      until: '2026-01-03T00:00:00Z',
    });
    expect(since.threads.map((x) => x.id)).toEqual([ids[1]]);
  });

  it('copies a thread with its runs and versions under new ids; refuses while a run is active', async () => {
    const t = await pg.tenant();
    const thread = await pg.thread(t);
    const run = await pg.run(t, thread, { status: 'succeeded', request_id: 'r1' });
    await pg.db
      .insertInto('state_deltas')
      .values({ thread_id: thread, version: 1, task_id: randomUUID(), run_id: run, node: 'n', delta: '{}' })
      .execute();
    await pg.db.updateTable('threads').set({ version: 1, title: 'T' }).where('id', '=', thread).execute();
    const copy = randomUUID();
    await repo.copy(t, thread, copy);
    expect(await repo.threadOrThrow(t, copy)).toMatchObject({ id: copy, version: 1, title: 'T' });
    const [copied] = await repo.runsOf(copy);
    expect(copied.id).not.toBe(run);
    const versions = await repo.versions(copy, 10, 10);
    expect(versions).toEqual([
      {
        version: 1,
        run_id: copied.id,
        node: 'n',
        created_at: expect.any(Date),
        next: null,
        from_version: null,
        compacted: false,
      },
    ]);
    await pg.run(t, thread, { status: 'waiting' });
    await expect(repo.copy(t, thread, randomUUID())).rejects.toThrow(ApiException);
    await expect(repo.threadOrThrow(await pg.tenant(), thread)).rejects.toThrow(ApiException);
    // The copy's delta names a run specDatabase did not make: gone with the spec's.
    await pg.db.deleteFrom('state_deltas').where('thread_id', '=', copy).execute();
  });

  it("refuses to delete a thread whose run a step holds, without deadlocking on the step's order", async () => {
    const t = await pg.tenant();
    const thread = await pg.thread(t);
    const run = await pg.run(t, thread, { status: 'running' });
    // A step as the orchestrator takes its locks: the run first, the thread's version with its COMMIT.
    const step = pg.ds.createQueryRunner();
    await step.connect();
    try {
      await step.startTransaction();
      await step.query('SELECT id FROM runs WHERE id = $1 FOR UPDATE', [run]);
      const deleting = repo.delete(t, thread).then(
        () => 'deleted',
        (err: unknown) => err,
      );
      await new Promise((r) => setTimeout(r, 200)); // the delete holds the thread by now
      const moved = step.query('UPDATE threads SET version = version + 1 WHERE id = $1', [thread]);
      const refused = await deleting;
      expect(refused).toBeInstanceOf(ApiException);
      expect((refused as ApiException).code).toBe(ApiErrorCode.Conflict);
      expect((refused as ApiException).message).toContain('is running');
      await moved;
      await step.commitTransaction();
    } finally {
      await step.release();
    }
    expect(await repo.threadOrThrow(t, thread)).toMatchObject({ id: thread, version: 1 });
  });
});
