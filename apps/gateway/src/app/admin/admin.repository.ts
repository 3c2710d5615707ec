import { Inject, Injectable } from '@nestjs/common';
import { sql, type Updateable } from 'kysely';
import { DataSource } from 'typeorm';
import { type DB, type Db, kyselyOf, kyselyTransaction } from '@switchyard/persistence';
import type { Provider } from '@switchyard/provider-tools';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import type { TenantRow } from '../registry/registry.views';

export interface KeyRow {
  id: string;
  prefix: string;
  label: string | null;
  created_at: Date;
  revoked_at: Date | null;
}

export interface ProviderKeyRow {
  id: string;
  tenant_id: string;
  provider: Provider;
  fingerprint: string;
  status: 'active' | 'revoked';
  created_at: Date;
  revoked_at: Date | null;
}

const KEY_COLUMNS = ['id', 'prefix', 'label', 'created_at', 'revoked_at'] as const;
/** The tenant columns PATCH /v1/admin/tenants/:id may set. */
export const TENANT_SETTINGS = [
  'token_budget',
  'rate_limit_per_second',
  'rate_limit_burst',
  'max_active_runs',
  'max_running_runs',
  'memory_embedding_model',
  'weight',
] as const;
/** Settings whose column is NOT NULL: null sets the column's default instead. */
const TENANT_SETTING_DEFAULTS: Partial<Record<(typeof TENANT_SETTINGS)[number], number>> = { weight: 1 };
/** The columns of a TenantRow (registry.views.ts). */
const TENANT_COLUMNS = ['id', 'name', 'tokens_used', 'created_at', ...TENANT_SETTINGS] as const;
const PROVIDER_KEY_COLUMNS = [
  'id',
  'tenant_id',
  'provider',
  'fingerprint',
  'status',
  'created_at',
  'revoked_at',
] as const;

/** A provider key as stored: `provider` and `status` hold only the values the API writes. */
const providerKeyRow = (
  r: Omit<ProviderKeyRow, 'provider' | 'status'> & { provider: string; status: string },
) => ({
  ...r,
  provider: r.provider as Provider,
  status: r.status as ProviderKeyRow['status'],
});

/** The admin API's queries: tenants, their API keys and their provider keys. */
@Injectable()
export class AdminRepository {
  private readonly db: Db;

  constructor(@Inject(DataSource) private readonly ds: DataSource) {
    this.db = kyselyOf(ds);
  }

  async createTenant(name: string): Promise<TenantRow> {
    const row = await this.db
      .insertInto('tenants')
      .values({ name })
      .onConflict((oc) => oc.column('name').doNothing())
      .returning(TENANT_COLUMNS)
      .executeTakeFirst();
    if (!row) {
      throw new ApiException(ApiErrorCode.Conflict, `a tenant named "${name}" exists`);
    }
    return row;
  }

  tenants(): Promise<TenantRow[]> {
    return this.db.selectFrom('tenants').select(TENANT_COLUMNS).orderBy('created_at').execute();
  }

  async tenantOrThrow(tenantId: string): Promise<TenantRow> {
    const row = await this.db
      .selectFrom('tenants')
      .select(TENANT_COLUMNS)
      .where('id', '=', tenantId)
      .executeTakeFirst();
    if (!row) {
      throw ApiException.notFound('tenant');
    }
    return row;
  }

  /** Sets the named fields (budget, limits, weight); null = unlimited / the default. */
  patchTenant(
    tenantId: string,
    fields: Partial<Record<(typeof TENANT_SETTINGS)[number], number | string | null>>,
  ): Promise<TenantRow> {
    const names = TENANT_SETTINGS.filter((f) => fields[f] !== undefined);
    // Each value is the column's as the API validated it (PatchTenantSchema).
    const set = Object.fromEntries(
      names.map((f) => [f, fields[f] ?? TENANT_SETTING_DEFAULTS[f] ?? null]),
    ) as Updateable<DB['tenants']>;
    return this.updateTenant(tenantId, set);
  }

  /** Whether the registry has an embedding model of this name (or id). */
  async isEmbeddingModel(name: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('models')
      .select(sql.lit(1).as('one'))
      .where('category', '=', 'embedding')
      .where((eb) => eb.or([eb('name', '=', name), eb(eb.cast('id', 'text'), '=', name)]))
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** A new budget period: tokens_used back to 0 (model_usage keeps the history). */
  resetUsage(tenantId: string): Promise<TenantRow> {
    return this.updateTenant(tenantId, { tokens_used: 0 });
  }

  /** Stores a new API key by its hash (the key itself is never stored). */
  async createKey(
    tenantId: string,
    key: { prefix: string; hash: string; label: string | null },
  ): Promise<KeyRow> {
    await this.tenantOrThrow(tenantId);
    return this.db
      .insertInto('api_keys')
      .values({ tenant_id: tenantId, prefix: key.prefix, hash: key.hash, label: key.label })
      .returning(KEY_COLUMNS)
      .executeTakeFirstOrThrow();
  }

  async keys(tenantId: string): Promise<KeyRow[]> {
    await this.tenantOrThrow(tenantId);
    return this.db
      .selectFrom('api_keys')
      .select(KEY_COLUMNS)
      .where('tenant_id', '=', tenantId)
      .orderBy('created_at')
      .execute();
  }

  /** Revokes a key (idempotent: the first revocation time stays). */
  async revokeKey(tenantId: string, keyId: string): Promise<KeyRow> {
    const row = await this.db
      .updateTable('api_keys')
      .set((eb) => ({ revoked_at: eb.fn.coalesce('revoked_at', eb.fn<Date>('now')) }))
      .where('id', '=', keyId)
      .where('tenant_id', '=', tenantId)
      .returning(KEY_COLUMNS)
      .executeTakeFirst();
    if (!row) {
      throw ApiException.notFound('key');
    }
    return row;
  }

  /**
   * Stores the tenant's key for a provider, revoking the active one in the same transaction
   * (the tenant row is locked, so two rotations do not race).
   */
  async setProviderKey(
    tenantId: string,
    provider: Provider,
    key: { sealed: string; fingerprint: string },
  ): Promise<{ row: ProviderKeyRow; replaced: string[] }> {
    return kyselyTransaction(this.ds, async (db) => {
      const tenant = await db
        .selectFrom('tenants')
        .select('id')
        .where('id', '=', tenantId)
        .forUpdate()
        .executeTakeFirst();
      if (!tenant) {
        throw ApiException.notFound('tenant');
      }
      const revoked = await revokeActiveProviderKey(db, tenantId, provider).execute();
      const row = await db
        .insertInto('provider_keys')
        .values({ tenant_id: tenantId, provider, secret_sealed: key.sealed, fingerprint: key.fingerprint })
        .returning(PROVIDER_KEY_COLUMNS)
        .executeTakeFirstOrThrow();
      return { row: providerKeyRow(row), replaced: revoked.map((r) => r.id) };
    });
  }

  async providerKeys(tenantId: string): Promise<ProviderKeyRow[]> {
    await this.tenantOrThrow(tenantId);
    const rows = await this.db
      .selectFrom('provider_keys')
      .select(PROVIDER_KEY_COLUMNS)
      .where('tenant_id', '=', tenantId)
      .orderBy('provider')
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(providerKeyRow);
  }

  /** Revokes the tenant's active key of the provider; 404 when it has none. */
  async revokeProviderKey(tenantId: string, provider: Provider): Promise<ProviderKeyRow> {
    const row = await revokeActiveProviderKey(this.db, tenantId, provider).executeTakeFirst();
    if (!row) {
      throw ApiException.notFound(`active ${provider} key`);
    }
    return providerKeyRow(row);
  }

  private async updateTenant(tenantId: string, set: Updateable<DB['tenants']>): Promise<TenantRow> {
    const row = await this.db
      .updateTable('tenants')
      .set(set)
      .where('id', '=', tenantId)
      .returning(TENANT_COLUMNS)
      .executeTakeFirst();
    if (!row) {
      throw ApiException.notFound('tenant');
    }
    return row;
  }
}

/** Revokes the tenant's active key of the provider (at most one), answering it. */
function revokeActiveProviderKey(db: Db, tenantId: string, provider: Provider) {
  return db
    .updateTable('provider_keys')
    .set((eb) => ({ status: 'revoked', revoked_at: eb.fn('now') }))
    .where('tenant_id', '=', tenantId)
    .where('provider', '=', provider)
    .where('status', '=', 'active')
    .returning(PROVIDER_KEY_COLUMNS);
}
