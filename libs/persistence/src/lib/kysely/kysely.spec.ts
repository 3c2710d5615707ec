// Kysely on the DataSource's pool and inside TypeORM transactions, against the real Postgres
// (`switchyard_test`, migrated): statements join the transaction whose connection they run on.
import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { testDatabaseUrl } from '@switchyard/testing';
import { createDataSource, ensureDatabase, runMigrationsLocked } from '../data-source';
import { kyselyOf, kyselyOfManager, kyselyTransaction } from './kysely';

jest.setTimeout(30_000);

describe('Kysely over the DataSource', () => {
  let ds: DataSource | undefined;
  const names: string[] = [];
  const tenant = (): string => {
    const name = `kysely-spec-${randomUUID()}`;
    names.push(name);
    return name;
  };
  const tenantsNamed = async (name: string): Promise<number> =>
    (await kyselyOf(ds!).selectFrom('tenants').select('id').where('name', '=', name).execute()).length;

  beforeAll(async () => {
    const url = testDatabaseUrl();
    await ensureDatabase(url);
    ds = await createDataSource(url, { poolSize: 3, name: 'kysely-spec' });
    await runMigrationsLocked(ds);
  });

  afterAll(async () => {
    if (names.length) {
      await kyselyOf(ds!).deleteFrom('tenants').where('name', 'in', names).execute();
    }
    await ds?.destroy();
  });

  it('is one instance per DataSource, over its own pool (no second pool)', async () => {
    const db = kyselyOf(ds!);
    expect(kyselyOf(ds!)).toBe(db);
    const pool = (ds!.driver as PostgresDriver).master as Pool;
    const row = await db
      .selectFrom('tenants')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(row.n)).toBeGreaterThanOrEqual(0);
    // The statement borrowed one of the DataSource's connections (and gave it back).
    expect(pool.totalCount).toBeGreaterThan(0);
    expect(pool.totalCount).toBeLessThanOrEqual(3);
    expect(pool.idleCount).toBe(pool.totalCount);
  });

  it('commits a transaction whose work succeeds', async () => {
    const name = tenant();
    await kyselyTransaction(ds!, (db) => db.insertInto('tenants').values({ name }).execute());
    expect(await tenantsNamed(name)).toBe(1);
  });

  it("rolls back every statement of a transaction whose work throws, as TypeORM's transaction does", async () => {
    const name = tenant();
    await expect(
      kyselyTransaction(ds!, async (db) => {
        await db.insertInto('tenants').values({ name }).execute();
        // Inside the transaction its own insert is visible; outside it is not yet.
        expect((await db.selectFrom('tenants').select('id').where('name', '=', name).execute()).length).toBe(
          1,
        );
        expect(await tenantsNamed(name)).toBe(0);
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await tenantsNamed(name)).toBe(0);
  });

  it("runs on the connection of a transaction manager handed in (TypeORM's and Kysely's statements together)", async () => {
    const name = tenant();
    await expect(
      ds!.transaction(async (m) => {
        await m.query('INSERT INTO tenants (name) VALUES ($1)', [name]);
        const db = await kyselyOfManager(m);
        expect((await db.selectFrom('tenants').select('id').where('name', '=', name).execute()).length).toBe(
          1,
        );
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await tenantsNamed(name)).toBe(0);
  });
});
