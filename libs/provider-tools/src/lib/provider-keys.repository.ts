import type { DataSource } from 'typeorm';
import { type Db, kyselyOf } from '@switchyard/persistence';

/** The `provider_keys` table, as ProviderKeys reads it. */
export class ProviderKeysRepository {
  private readonly db: Db;

  constructor(ds: DataSource) {
    this.db = kyselyOf(ds);
  }

  /** The sealed secret of the tenant's active key for the provider; undefined when there is none. */
  async activeSealedSecret(tenantId: string, provider: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('provider_keys')
      .select('secret_sealed')
      .where('tenant_id', '=', tenantId)
      .where('provider', '=', provider)
      .where('status', '=', 'active')
      .executeTakeFirst();
    return row?.secret_sealed;
  }
}
