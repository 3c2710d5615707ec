import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Provider } from '@switchyard/provider-tools';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { TENANT_COLUMNS, type TenantRow } from '../registry/registry.views';

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

const KEY_COLUMNS = 'id, prefix, label, created_at, revoked_at';
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
const PROVIDER_KEY_COLUMNS = 'id, tenant_id, provider, fingerprint, status, created_at, revoked_at';

/** The admin API's queries: tenants, their API keys and their provider keys. */
@Injectable()
export class AdminRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  async createTenant(name: string): Promise<TenantRow> {
    const rows = (await this.ds.query(
      `INSERT INTO tenants (name) VALUES ($1) ON CONFLICT (name) DO NOTHING RETURNING ${TENANT_COLUMNS}`,
      [name],
    )) as TenantRow[];
    if (rows.length === 0) {
      throw new ApiException(ApiErrorCode.Conflict, `a tenant named "${name}" exists`);
    }
    return rows[0];
  }

  async tenants(): Promise<TenantRow[]> {
    return (await this.ds.query(`SELECT ${TENANT_COLUMNS} FROM tenants ORDER BY created_at`)) as TenantRow[];
  }

  async tenantOrThrow(tenantId: string): Promise<TenantRow> {
    const [row] = (await this.ds.query(`SELECT ${TENANT_COLUMNS} FROM tenants WHERE id = $1`, [
      tenantId,
    ])) as TenantRow[];
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
    return this.updateTenant(
      tenantId,
      names.map((f, i) => `${f} = $${i + 2}`).join(', '),
      names.map((f) => fields[f] ?? TENANT_SETTING_DEFAULTS[f] ?? null),
    );
  }

  /** Whether the registry has an embedding model of this name (or id). */
  async isEmbeddingModel(name: string): Promise<boolean> {
    const rows = (await this.ds.query(
      `SELECT 1 FROM models WHERE category = 'embedding' AND (name = $1 OR id::text = $1) LIMIT 1`,
      [name],
    )) as unknown[];
    return rows.length > 0;
  }

  /** A new budget period: tokens_used back to 0 (model_usage keeps the history). */
  resetUsage(tenantId: string): Promise<TenantRow> {
    return this.updateTenant(tenantId, 'tokens_used = 0', []);
  }

  /** Stores a new API key by its hash (the key itself is never stored). */
  async createKey(
    tenantId: string,
    key: { prefix: string; hash: string; label: string | null },
  ): Promise<KeyRow> {
    await this.tenantOrThrow(tenantId);
    const [row] = (await this.ds.query(
      `INSERT INTO api_keys (tenant_id, prefix, hash, label) VALUES ($1, $2, $3, $4) RETURNING ${KEY_COLUMNS}`,
      [tenantId, key.prefix, key.hash, key.label],
    )) as KeyRow[];
    return row;
  }

  async keys(tenantId: string): Promise<KeyRow[]> {
    await this.tenantOrThrow(tenantId);
    return (await this.ds.query(
      `SELECT ${KEY_COLUMNS} FROM api_keys WHERE tenant_id = $1 ORDER BY created_at`,
      [tenantId],
    )) as KeyRow[];
  }

  /** Revokes a key (idempotent: the first revocation time stays). */
  async revokeKey(tenantId: string, keyId: string): Promise<KeyRow> {
    const [rows] = (await this.ds.query(
      `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1 AND tenant_id = $2
       RETURNING ${KEY_COLUMNS}`,
      [keyId, tenantId],
    )) as [KeyRow[], number];
    if (rows.length === 0) {
      throw ApiException.notFound('key');
    }
    return rows[0];
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
    return this.ds.transaction(async (m) => {
      const [tenant] = (await m.query('SELECT id FROM tenants WHERE id = $1 FOR UPDATE', [
        tenantId,
      ])) as unknown[];
      if (!tenant) {
        throw ApiException.notFound('tenant');
      }
      const revoked = (await m.query(
        `UPDATE provider_keys SET status = 'revoked', revoked_at = now()
         WHERE tenant_id = $1 AND provider = $2 AND status = 'active' RETURNING ${PROVIDER_KEY_COLUMNS}`,
        [tenantId, provider],
      )) as [ProviderKeyRow[], number];
      const [row] = (await m.query(
        `INSERT INTO provider_keys (tenant_id, provider, secret_sealed, fingerprint)
         VALUES ($1, $2, $3, $4) RETURNING ${PROVIDER_KEY_COLUMNS}`,
        [tenantId, provider, key.sealed, key.fingerprint],
      )) as ProviderKeyRow[];
      return { row, replaced: revoked[0].map((r) => r.id) };
    });
  }

  async providerKeys(tenantId: string): Promise<ProviderKeyRow[]> {
    await this.tenantOrThrow(tenantId);
    return (await this.ds.query(
      `SELECT ${PROVIDER_KEY_COLUMNS} FROM provider_keys WHERE tenant_id = $1 ORDER BY provider, created_at, id`,
      [tenantId],
    )) as ProviderKeyRow[];
  }

  /** Revokes the tenant's active key of the provider; 404 when it has none. */
  async revokeProviderKey(tenantId: string, provider: Provider): Promise<ProviderKeyRow> {
    const [rows] = (await this.ds.query(
      `UPDATE provider_keys SET status = 'revoked', revoked_at = now()
       WHERE tenant_id = $1 AND provider = $2 AND status = 'active' RETURNING ${PROVIDER_KEY_COLUMNS}`,
      [tenantId, provider],
    )) as [ProviderKeyRow[], number];
    if (rows.length === 0) {
      throw ApiException.notFound(`active ${provider} key`);
    }
    return rows[0];
  }

  private async updateTenant(tenantId: string, set: string, params: unknown[]): Promise<TenantRow> {
    const [rows] = (await this.ds.query(
      `UPDATE tenants SET ${set} WHERE id = $1 RETURNING ${TENANT_COLUMNS}`,
      [tenantId, ...params],
    )) as [TenantRow[], number];
    if (rows.length === 0) {
      throw ApiException.notFound('tenant');
    }
    return rows[0];
  }
}
