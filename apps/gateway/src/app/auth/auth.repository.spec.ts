// The API keys as the guard and the bootstrap read and write them, against the real Postgres.
import { randomUUID } from 'node:crypto';
import { specDatabase } from '../testing/spec-database';
import { AuthRepository } from './auth.repository';

jest.setTimeout(30_000);

describe(AuthRepository.name, () => {
  const pg = specDatabase('auth-repository-spec');
  let repo: AuthRepository;

  const key = async (tenantId: string, revoked = false) => {
    const hash = `auth-spec-${randomUUID()}`;
    const { id } = await pg.db
      .insertInto('api_keys')
      .values({ tenant_id: tenantId, prefix: 'sy_test', hash, revoked_at: revoked ? new Date() : null })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { id, hash };
  };

  beforeAll(() => {
    repo = new AuthRepository(pg.ds);
  });

  it("finds a live key by its hash, with its tenant's limits; not a revoked or unknown one", async () => {
    const limited = await pg.tenant({ rate_limit_per_second: 5, rate_limit_burst: 10 });
    const live = await key(limited);
    const revoked = await key(limited, true);
    const plain = await key(await pg.tenant());
    expect(await repo.liveKey(live.hash)).toEqual({
      id: live.id,
      tenant_id: limited,
      rate_limit_per_second: 5,
      rate_limit_burst: 10,
    });
    expect(await repo.liveKey(plain.hash)).toMatchObject({
      rate_limit_per_second: null,
      rate_limit_burst: null,
    });
    expect(await repo.liveKey(revoked.hash)).toBeUndefined();
    expect(await repo.liveKey(`auth-spec-${randomUUID()}`)).toBeUndefined();
  });

  it('makes tenant `default` accept the bootstrap key, once however often it runs', async () => {
    const hash = `auth-spec-${randomUUID()}`;
    try {
      await repo.ensureDefaultTenantKey('sy_boot', hash);
      await repo.ensureDefaultTenantKey('sy_boot', hash);
      const defaults = await pg.db.selectFrom('tenants').select('id').where('name', '=', 'default').execute();
      expect(defaults).toHaveLength(1);
      const keys = await pg.db
        .selectFrom('api_keys')
        .select(['tenant_id', 'prefix', 'label'])
        .where('hash', '=', hash)
        .execute();
      expect(keys).toEqual([{ tenant_id: defaults[0].id, prefix: 'sy_boot', label: 'bootstrap' }]);
      expect(await repo.liveKey(hash)).toMatchObject({ tenant_id: defaults[0].id });
    } finally {
      // Tenant `default` may serve other specs: only the spec's key of it goes.
      await pg.db.deleteFrom('api_keys').where('hash', '=', hash).execute();
    }
  });
});
