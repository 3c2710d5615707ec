import { type Compilable, Kysely, PostgresDialect, type PostgresPool } from 'kysely';
import type { Pool, PoolClient } from 'pg';
import type { DataSource, EntityManager } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import type { DB } from './db';
import { preparedQuery } from '../prepared-query';

/** A typed query builder over our schema (the `DB` table types: libs/persistence/src/lib/kysely/db.ts). */
export type Db = Kysely<DB>;

const byDataSource = new WeakMap<DataSource, Db>();

/**
 * The `Kysely<DB>` of a DataSource, over the DataSource's own pg pool (no second pool: the same
 * connections, limits and error guard). One per DataSource. Never `destroy()` it: that would end
 * the DataSource's pool.
 */
export function kyselyOf(ds: DataSource): Db {
  let db = byDataSource.get(ds);
  if (!db) {
    // Resolved at the first statement: the pool exists once the DataSource is initialised.
    const pool = async (): Promise<PostgresPool> => (ds.driver as PostgresDriver).master as Pool;
    db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    byDataSource.set(ds, db);
  }
  return db;
}

/**
 * A `Kysely<DB>` whose every statement runs on `client`, a connection already held (a TypeORM
 * transaction's): the statements join that transaction; releasing the client stays its owner's job.
 */
export function kyselyOnClient(client: PoolClient): Db {
  const held: PostgresPool = {
    connect: async () => ({
      query: client.query.bind(client) as PoolClient['query'],
      release: () => undefined,
    }),
    end: async () => undefined,
  };
  return new Kysely<DB>({ dialect: new PostgresDialect({ pool: held }) });
}

/**
 * The `Kysely<DB>` of a TypeORM EntityManager: inside `ds.transaction(m => …)` (or any manager
 * with a query runner) its statements run on the transaction's connection; a manager without one
 * (`ds.manager`) gets the DataSource's pooled instance.
 */
export async function kyselyOfManager(m: EntityManager): Promise<Db> {
  const runner = m.queryRunner;
  if (!runner) {
    return kyselyOf(m.connection);
  }
  return kyselyOnClient((await runner.connect()) as PoolClient);
}

/** Runs `work` in a TypeORM transaction of `ds` (as `ds.transaction` does), with a Kysely on its connection. */
export function kyselyTransaction<T>(ds: DataSource, work: (db: Db) => Promise<T>): Promise<T> {
  return ds.transaction(async (m) => work(await kyselyOfManager(m)));
}

/**
 * A Kysely query of a hot path run as a named prepared statement on the DataSource's pool
 * (`preparedQuery`): each connection parses and plans its text once, not at every request. The
 * rows are pg's, as Kysely's own execute returns them.
 */
export function executePrepared<R>(ds: DataSource, query: Compilable<R>): Promise<R[]> {
  const { sql, parameters } = query.compile();
  return preparedQuery<R>(ds, sql, [...parameters]);
}
