// The store's statements against the real Postgres: upsert and expiry, the tenant filter, search and namespaces.
import { sql } from 'kysely';
import { ApiException } from '../http/api.exception';
import { specDatabase } from '../testing/spec-database';
import { type StoreQuery, type StoreWrite, StoreRepository } from './store.repository';

jest.setTimeout(30_000);

describe(StoreRepository.name, () => {
  const pg = specDatabase('store-repository-spec');
  let repo: StoreRepository;
  let tenantId: string;

  const item = (namespace: string[], key: string, over: Partial<StoreWrite> = {}): StoreWrite => ({
    namespace,
    key,
    value: { key },
    embedding: null,
    ttlMinutes: null,
    ...over,
  });
  const query = (over: Partial<StoreQuery>): StoreQuery => ({
    prefix: [],
    filter: {},
    limit: 10,
    offset: 0,
    refreshTtl: false,
    ...over,
  });
  const expiresAt = async (t: string, namespace: string[], key: string) =>
    (
      await pg.db
        .selectFrom('store_items')
        .select('expires_at')
        .where('tenant_id', '=', t)
        .where('namespace', '=', sql.val(namespace))
        .where('key', '=', key)
        .executeTakeFirstOrThrow()
    ).expires_at;

  beforeAll(async () => {
    repo = new StoreRepository(pg.ds);
    tenantId = await pg.tenant();
  });

  it("puts, replaces, gets and deletes the tenant's own items", async () => {
    await repo.put(tenantId, item(['a', 'b'], 'k', { value: { n: 1 } }));
    const first = await repo.get(tenantId, ['a', 'b'], 'k', false);
    expect(first).toMatchObject({ namespace: ['a', 'b'], key: 'k', value: { n: 1 } });
    await repo.put(tenantId, item(['a', 'b'], 'k', { value: { n: 2 } }));
    const second = await repo.get(tenantId, ['a', 'b'], 'k', false);
    expect(second).toMatchObject({ value: { n: 2 }, created_at: first?.created_at });
    expect(await repo.get(await pg.tenant(), ['a', 'b'], 'k', false)).toBeUndefined();
    expect(await repo.get(tenantId, ['a'], 'k', false)).toBeUndefined();
    await repo.delete(tenantId, ['a', 'b'], 'k');
    expect(await repo.get(tenantId, ['a', 'b'], 'k', false)).toBeUndefined();
  });

  it('never reads an expired item; a put over it starts it anew; a refreshing get restarts its TTL', async () => {
    await repo.put(tenantId, item(['x'], 'old', { ttlMinutes: -1 }));
    expect(await repo.get(tenantId, ['x'], 'old', false)).toBeUndefined();
    expect(await repo.get(tenantId, ['x'], 'old', true)).toBeUndefined();
    const before = new Date();
    await new Promise((r) => setTimeout(r, 5));
    await repo.put(tenantId, item(['x'], 'old', { ttlMinutes: 5 }));
    const anew = await repo.get(tenantId, ['x'], 'old', false);
    expect(anew?.created_at.getTime()).toBeGreaterThan(before.getTime());
    await pg.db
      .updateTable('store_items')
      .set({ expires_at: new Date(Date.now() + 60_000) })
      .where('key', '=', 'old')
      .where('tenant_id', '=', tenantId)
      .execute();
    const refreshed = await repo.get(tenantId, ['x'], 'old', true);
    expect(refreshed).toMatchObject({ key: 'old', value: { key: 'old' } });
    expect((await expiresAt(tenantId, ['x'], 'old'))!.getTime()).toBeGreaterThan(Date.now() + 4 * 60_000);
  });

  it('searches under a prefix with filters, newest first, paged; semantic by score', async () => {
    const t = await pg.tenant();
    await repo.put(
      t,
      item(['p', 'q'], 'one', { value: { n: 1, tag: 'a' }, embedding: { vector: [1, 0], model: 'm' } }),
    );
    await repo.put(
      t,
      item(['p', 'q'], 'two', { value: { n: 2, tag: 'b' }, embedding: { vector: [0.6, 0.8], model: 'm' } }),
    );
    await repo.put(
      t,
      item(['p', 'r'], 'three', { value: { n: 3, tag: 'a' }, embedding: { vector: [0, 1], model: 'other' } }),
    );
    await repo.put(t, item(['z'], 'four', { value: { n: 4 } }));
    await repo.put(t, item(['p', 'q'], 'gone', { ttlMinutes: -1 }));
    await repo.put(tenantId, item(['p', 'q'], 'foreign'));
    const keys = async (q: Partial<StoreQuery>) => (await repo.search(t, query(q))).map((r) => r.key);
    expect(await keys({ prefix: ['p'] })).toEqual(['three', 'two', 'one']);
    expect(await keys({ prefix: ['p'], limit: 1, offset: 1 })).toEqual(['two']);
    expect(await keys({ prefix: ['p', 'q'] })).toEqual(['two', 'one']);
    expect(await keys({ prefix: ['p'], filter: { tag: 'a' } })).toEqual(['three', 'one']);
    expect(await keys({ filter: { n: { $gte: 2, $lt: 4 } } })).toEqual(['three', 'two']);
    expect(await keys({ filter: { tag: { $ne: 'a' } } })).toEqual(['four', 'two']);
    await expect(keys({ filter: { n: { $in: [1] } } })).rejects.toBeInstanceOf(ApiException);
    const ranked = await repo.search(t, query({ prefix: ['p'], semantic: { vector: [0, 1], model: 'm' } }));
    expect(ranked.map((r) => [r.key, r.score])).toEqual([
      ['two', expect.closeTo(0.8, 5)],
      ['one', 0],
    ]);
    expect((await repo.search(t, query({ prefix: ['p', 'q'] })))[0]).not.toHaveProperty('score');
  });

  it('takes a TTL of a fraction of a minute', async () => {
    await repo.put(tenantId, item(['frac'], 'k', { ttlMinutes: 0.5 }));
    const left = (await expiresAt(tenantId, ['frac'], 'k'))!.getTime() - Date.now();
    expect(left).toBeGreaterThan(20_000);
    expect(left).toBeLessThanOrEqual(30_000);
  });

  it("restarts the TTLs of the items a refreshing search finds, and no one else's", async () => {
    const t = await pg.tenant();
    await repo.put(t, item(['s'], 'found', { ttlMinutes: 5 }));
    await repo.put(t, item(['u'], 'other', { ttlMinutes: 5 }));
    const soon = new Date(Date.now() + 60_000);
    await pg.db.updateTable('store_items').set({ expires_at: soon }).where('tenant_id', '=', t).execute();
    await repo.search(t, query({ prefix: ['s'], refreshTtl: true }));
    expect((await expiresAt(t, ['s'], 'found'))!.getTime()).toBeGreaterThan(Date.now() + 4 * 60_000);
    expect(await expiresAt(t, ['u'], 'other')).toEqual(soon);
  });

  it('lists the distinct namespaces under a prefix, ending with a suffix, cut to a depth', async () => {
    const t = await pg.tenant();
    for (const ns of [
      ['a', 'b', 'c'],
      ['a', 'b', 'd'],
      ['a', 'e'],
      ['f', 'c'],
    ]) {
      await repo.put(t, item(ns, 'k'));
    }
    await repo.put(t, item(['a', 'old'], 'k', { ttlMinutes: -1 }));
    const ns = (q: Partial<Parameters<StoreRepository['namespaces']>[1]>) =>
      repo.namespaces(t, { prefix: [], suffix: [], maxDepth: null, limit: 10, offset: 0, ...q });
    expect(await ns({})).toEqual([
      ['a', 'b', 'c'],
      ['a', 'b', 'd'],
      ['a', 'e'],
      ['f', 'c'],
    ]);
    expect(await ns({ prefix: ['a'], maxDepth: 2 })).toEqual([
      ['a', 'b'],
      ['a', 'e'],
    ]);
    expect(await ns({ suffix: ['c'] })).toEqual([
      ['a', 'b', 'c'],
      ['f', 'c'],
    ]);
    expect(await ns({ maxDepth: 1, limit: 1, offset: 1 })).toEqual([['f']]);
  });
});
