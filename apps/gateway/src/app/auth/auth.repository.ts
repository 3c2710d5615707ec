import type { DataSource } from 'typeorm';
import { type Db, executePrepared, kyselyOf, kyselyTransaction } from '@switchyard/persistence';

/** A live API key and its tenant's request limits (null: the gateway's defaults). */
export interface ApiKeyRow {
  id: string;
  tenant_id: string;
  rate_limit_per_second: number | null;
  rate_limit_burst: number | null;
}

/** The API keys and the tenants they authenticate (`api_keys`, `tenants`). */
export class AuthRepository {
  private readonly db: Db;

  constructor(private readonly ds: DataSource) {
    this.db = kyselyOf(ds);
  }

  /**
   * The unrevoked key of this hash, with its tenant's limits (a primary-key join): one statement
   * per authenticated request, an indexed equality on the hash, prepared once per connection (it
   * is on every request's path: 1.0–2.5 ms parsed and planned each time, PROFILE.md round 13).
   */
  async liveKey(hash: string): Promise<ApiKeyRow | undefined> {
    const [row] = await executePrepared(
      this.ds,
      this.db
        .selectFrom('api_keys as k')
        .innerJoin('tenants as t', 't.id', 'k.tenant_id')
        .select(['k.id', 'k.tenant_id', 't.rate_limit_per_second', 't.rate_limit_burst'])
        .where('k.hash', '=', hash)
        .where('k.revoked_at', 'is', null),
    );
    return row;
  }

  /** Tenant `default` and a key of it (`label` bootstrap), each created unless it exists, in one transaction. */
  async ensureDefaultTenantKey(prefix: string, hash: string): Promise<void> {
    await kyselyTransaction(this.ds, async (db) => {
      await db
        .insertInto('tenants')
        .values({ name: 'default' })
        .onConflict((oc) => oc.column('name').doNothing())
        .execute();
      const tenant = await db
        .selectFrom('tenants')
        .select('id')
        .where('name', '=', 'default')
        .executeTakeFirstOrThrow();
      await db
        .insertInto('api_keys')
        .values({ tenant_id: tenant.id, prefix, hash, label: 'bootstrap' })
        .onConflict((oc) => oc.column('hash').doNothing())
        .execute();
    });
  }
}
