import { sql } from 'kysely';
import type { DataSource } from 'typeorm';
import { type Db, kyselyOf } from '@switchyard/persistence';

/** What the platform reads from Postgres: a liveness probe and the tenants' dispatch weights. */
export class PlatformRepository {
  private readonly db: Db;

  constructor(ds: DataSource) {
    this.db = kyselyOf(ds);
  }

  /** One round trip (`SELECT 1`): rejects when Postgres does not answer. */
  async ping(): Promise<void> {
    await sql`SELECT 1`.execute(this.db);
  }

  /** The tenants whose dispatch weight is not the default 1. */
  weightedTenants(): Promise<{ id: string; weight: number }[]> {
    return this.db.selectFrom('tenants').select(['id', 'weight']).where('weight', '<>', 1).execute();
  }
}
