// For the repository specs: the real Postgres (`switchyard_test` on DATABASE_URL's server, migrated),
// with tenants of the spec's own that are deleted afterwards, and all they own with them.
import { randomUUID } from 'node:crypto';
import type { Insertable } from 'kysely';
import type { DataSource } from 'typeorm';
import {
  type DB,
  type Db,
  createDataSource,
  ensureDatabase,
  kyselyOf,
  runMigrationsLocked,
} from '@switchyard/persistence';
import { testDatabaseUrl } from '@switchyard/testing';

export interface SpecDatabase {
  readonly ds: DataSource;
  readonly db: Db;
  /** A new tenant (`name`: unique unless given). */
  tenant(columns?: Partial<Insertable<DB['tenants']>>): Promise<string>;
  /** A new thread of the tenant (agent `default`). */
  thread(tenantId: string): Promise<string>;
  /** A new run of the thread: agent `default`, input `{}`, status `running` unless `columns` say otherwise. */
  run(tenantId: string, threadId: string, columns?: Partial<Insertable<DB['runs']>>): Promise<string>;
}

/** Opens the database before the spec's tests (migrated) and, after them, deletes what they made. */
export function specDatabase(name: string): SpecDatabase {
  let ds: DataSource | undefined;
  const tenantIds: string[] = [];
  const runIds: string[] = [];
  const opened = (): DataSource => {
    if (!ds) {
      throw new Error('specDatabase: the database opens in beforeAll');
    }
    return ds;
  };

  beforeAll(async () => {
    const url = testDatabaseUrl();
    await ensureDatabase(url);
    ds = await createDataSource(url, { poolSize: 2, name });
    await runMigrationsLocked(ds);
  });

  afterAll(async () => {
    if (!ds) {
      return;
    }
    const db = kyselyOf(ds);
    // Deltas reference their run by id only; everything else goes with its tenant (ON DELETE CASCADE).
    if (runIds.length) {
      await db.deleteFrom('state_deltas').where('run_id', 'in', runIds).execute();
    }
    if (tenantIds.length) {
      await db.deleteFrom('tenants').where('id', 'in', tenantIds).execute();
    }
    await ds.destroy();
  });

  return {
    get ds() {
      return opened();
    },
    get db() {
      return kyselyOf(opened());
    },
    async tenant(columns = {}) {
      const { id } = await kyselyOf(opened())
        .insertInto('tenants')
        .values({ name: `${name}-${randomUUID()}`, ...columns })
        .returning('id')
        .executeTakeFirstOrThrow();
      tenantIds.push(id);
      return id;
    },
    async thread(tenantId) {
      const id = randomUUID();
      await kyselyOf(opened())
        .insertInto('threads')
        .values({ id, tenant_id: tenantId, agent_id: 'default' })
        .execute();
      return id;
    },
    async run(tenantId, threadId, columns = {}) {
      const id = randomUUID();
      runIds.push(id);
      await kyselyOf(opened())
        .insertInto('runs')
        .values({
          id,
          tenant_id: tenantId,
          thread_id: threadId,
          agent_id: 'default',
          input: '{}',
          status: 'running',
          ...columns,
        })
        .execute();
      return id;
    },
  };
}
