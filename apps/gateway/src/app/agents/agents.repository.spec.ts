// A tenant's agents and their versions, against the real Postgres.
import type { AgentConfig } from '@switchyard/contracts';
import { specDatabase } from '../testing/spec-database';
import { AgentsRepository } from './agents.repository';

jest.setTimeout(30_000);

describe(AgentsRepository.name, () => {
  const pg = specDatabase('agents-repository-spec');
  let repo: AgentsRepository;
  const config = (name: string) => ({ name }) as AgentConfig;

  beforeAll(() => {
    repo = new AgentsRepository(pg.ds);
  });

  it('creates an agent with version 1, publishes the next unpinned, lists it with its latest', async () => {
    const t = await pg.tenant();
    const a = await repo.create(t, 'a', config('a'));
    await repo.create(await pg.tenant(), 'theirs', config('theirs'));
    expect(await repo.list(t)).toEqual([
      {
        id: a.id,
        name: 'a',
        draft: config('a'),
        created_at: a.created_at,
        updated_at: expect.any(Date),
        latest_version_id: a.versionId,
        latest_version: 1,
      },
    ]);
    await pg.db.updateTable('agents').set({ latest_version: 1 }).where('id', '=', a.id).execute();
    await repo.saveDraft(a.id, 'a2', config('a2'));
    const v2 = await repo.publish(a.id, config('a2'));
    expect(v2).toMatchObject({ version: 2 });
    expect(await repo.getOrThrow(t, a.id)).toMatchObject({
      name: 'a2',
      latest_version_id: v2.id,
      latest_version: 2,
    });
    expect((await repo.versions(a.id)).map((v) => [v.version, v.config])).toEqual([
      [1, config('a')],
      [2, config('a2')],
    ]);
    await repo.softDelete(a.id);
    expect(await repo.list(t)).toEqual([]);
    await expect(repo.getOrThrow(t, a.id)).rejects.toThrow('agent');
  });
});
