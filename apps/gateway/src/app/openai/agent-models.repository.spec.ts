// A tenant's agents as OpenAI models, against the real Postgres.
import { randomUUID } from 'node:crypto';
import { specDatabase } from '../testing/spec-database';
import { AgentModelsRepository } from './agent-models.repository';

jest.setTimeout(30_000);

describe(AgentModelsRepository.name, () => {
  const pg = specDatabase('agent-models-repository-spec');
  let repo: AgentModelsRepository;

  /** An agent created `at`, with these published version numbers. */
  const agent = async (
    tenantId: string,
    name: string,
    at: string,
    versions: number[] = [],
    extra: { latest_version?: number; deleted_at?: Date } = {},
  ) => {
    const { id } = await pg.db
      .insertInto('agents')
      .values({ tenant_id: tenantId, name, draft: '{}', created_at: new Date(at), ...extra })
      .returning('id')
      .executeTakeFirstOrThrow();
    const versionIds: Record<number, string> = {};
    for (const version of versions) {
      const row = await pg.db
        .insertInto('agent_versions')
        .values({ agent_id: id, version, config: '{}' })
        .returning('id')
        .executeTakeFirstOrThrow();
      versionIds[version] = row.id;
    }
    return { id, versionIds };
  };

  beforeAll(() => {
    repo = new AgentModelsRepository(pg.ds);
  });

  it("lists the tenant's live agents oldest first, each with its latest version", async () => {
    const t = await pg.tenant();
    const b = await agent(t, 'b', '2026-01-02T00:00:00Z', [1, 2]);
    const a = await agent(t, 'a', '2026-01-01T00:00:00Z', [1, 2, 3], { latest_version: 2 });
    const c = await agent(t, 'c', '2026-01-03T00:00:00Z');
    await agent(t, 'gone', '2026-01-04T00:00:00Z', [1], { deleted_at: new Date() });
    await agent(await pg.tenant(), 'theirs', '2026-01-01T00:00:00Z', [1]);
    expect(await repo.agents(t)).toEqual([
      { id: a.id, name: 'a', created_at: new Date('2026-01-01T00:00:00Z'), version: 2 },
      { id: b.id, name: 'b', created_at: new Date('2026-01-02T00:00:00Z'), version: 2 },
      { id: c.id, name: 'c', created_at: new Date('2026-01-03T00:00:00Z'), version: null },
    ]);
  });

  it('finds an agent by id or by name within the tenant, as many as the limit', async () => {
    const t = await pg.tenant();
    const first = await agent(t, 'twin', '2026-01-01T00:00:00Z');
    const second = await agent(t, 'twin', '2026-01-02T00:00:00Z');
    await agent(t, 'twin', '2026-01-03T00:00:00Z');
    const theirs = await agent(await pg.tenant(), 'twin', '2026-01-01T00:00:00Z');
    expect((await repo.agents(t, { name: 'twin' }, 2)).map((r) => r.id)).toEqual([first.id, second.id]);
    expect((await repo.agents(t, { id: second.id })).map((r) => r.id)).toEqual([second.id]);
    expect(await repo.agents(t, { id: theirs.id })).toEqual([]);
    expect(await repo.agents(t, { name: 'nobody' })).toEqual([]);
  });

  it("finds an agent's version by number or by id, only that agent's", async () => {
    const t = await pg.tenant();
    const mine = await agent(t, 'mine', '2026-01-01T00:00:00Z', [1, 2]);
    const other = await agent(t, 'other', '2026-01-01T00:00:00Z', [1]);
    expect(await repo.versionId(mine.id, { number: 2 })).toBe(mine.versionIds[2]);
    expect(await repo.versionId(mine.id, { id: mine.versionIds[1] })).toBe(mine.versionIds[1]);
    expect(await repo.versionId(mine.id, { number: 3 })).toBeUndefined();
    expect(await repo.versionId(mine.id, { id: other.versionIds[1] })).toBeUndefined();
  });

  it('reads when a tenant was created', async () => {
    expect(await repo.tenantCreatedAt(await pg.tenant())).toBeInstanceOf(Date);
    expect(await repo.tenantCreatedAt(randomUUID())).toBeUndefined();
  });
});
