import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { pgCode } from './pg-errors';
import type { CreateEndpoint, CreateModel, CreateVendor, PatchModel, UsageQuery } from './registry.schemas';
import {
  ENDPOINT_COLUMNS,
  type EndpointRow,
  MODEL_COLUMNS,
  type ModelRow,
  type UsageRow,
  VENDOR_COLUMNS,
  VENDOR_KEY_COLUMNS,
  type VendorKeyRow,
  type VendorRow,
} from './registry.views';
import { USAGE_CURSOR_TIME, type UsagePosition } from './usage-cursor';

type Queryable = Pick<DataSource, 'query'>;

/** A vendor key as stored: the secret already sealed, named by its fingerprint. */
export interface NewVendorKey {
  label: string | null;
  tenantId: string | null;
  businessId: string | null;
  sealed: string;
  fingerprint: string;
}

/**
 * The model registry's queries (vendors, their endpoints and keys, models, metered usage). Not
 * found and conflicts are answered here as the API's errors.
 */
@Injectable()
export class RegistryRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  async createVendor(body: CreateVendor): Promise<VendorRow> {
    const rows = (await this.ds.query(
      `INSERT INTO vendors (name, kind, base_url) VALUES ($1, $2, $3)
       ON CONFLICT (name) DO NOTHING RETURNING ${VENDOR_COLUMNS}`,
      [body.name, body.kind, body.base_url ?? null],
    )) as VendorRow[];
    if (rows.length === 0) {
      throw new ApiException(ApiErrorCode.Conflict, `a vendor named "${body.name}" exists`);
    }
    return rows[0];
  }

  async vendors(): Promise<VendorRow[]> {
    return (await this.ds.query(
      `SELECT ${VENDOR_COLUMNS} FROM vendors ORDER BY created_at, id`,
    )) as VendorRow[];
  }

  vendorOrThrow(vendorId: string): Promise<VendorRow> {
    return vendorOrThrow(this.ds, vendorId);
  }

  /** One URL per vendor: a second endpoint with the same URL is a conflict, not a copy. */
  async createEndpoint(vendorId: string, body: CreateEndpoint): Promise<EndpointRow> {
    return this.ds.transaction(async (m) => {
      await vendorOrThrow(m, vendorId, { forUpdate: true });
      const [dup] = (await m.query('SELECT id FROM vendor_endpoints WHERE vendor_id = $1 AND url = $2', [
        vendorId,
        body.url,
      ])) as { id: string }[];
      if (dup) {
        throw new ApiException(ApiErrorCode.Conflict, `the vendor has this endpoint already (${dup.id})`);
      }
      const [row] = (await m.query(
        `INSERT INTO vendor_endpoints (vendor_id, url, categories) VALUES ($1, $2, $3) RETURNING ${ENDPOINT_COLUMNS}`,
        [vendorId, body.url, body.categories],
      )) as EndpointRow[];
      return row;
    });
  }

  async endpoints(vendorId: string): Promise<EndpointRow[]> {
    await vendorOrThrow(this.ds, vendorId);
    return (await this.ds.query(
      `SELECT ${ENDPOINT_COLUMNS} FROM vendor_endpoints WHERE vendor_id = $1 ORDER BY created_at, id`,
      [vendorId],
    )) as EndpointRow[];
  }

  /** The same secret (not revoked) twice for one vendor, tenant and business is a conflict. */
  async createVendorKey(vendorId: string, key: NewVendorKey): Promise<VendorKeyRow> {
    return this.ds.transaction(async (m) => {
      await vendorOrThrow(m, vendorId, { forUpdate: true });
      if (key.tenantId) {
        const [tenant] = (await m.query('SELECT id FROM tenants WHERE id = $1', [key.tenantId])) as unknown[];
        if (!tenant) {
          throw ApiException.notFound('tenant');
        }
      }
      const [dup] = (await m.query(
        `SELECT id FROM vendor_keys
         WHERE vendor_id = $1 AND fingerprint = $2 AND tenant_id IS NOT DISTINCT FROM $3
           AND business_id IS NOT DISTINCT FROM $4 AND status <> 'revoked'`,
        [vendorId, key.fingerprint, key.tenantId, key.businessId],
      )) as { id: string }[];
      if (dup) {
        throw new ApiException(
          ApiErrorCode.Conflict,
          `this key (fingerprint ${key.fingerprint}) is registered for the vendor already: ${dup.id}`,
        );
      }
      const [row] = (await m.query(
        `INSERT INTO vendor_keys (vendor_id, label, tenant_id, business_id, secret_sealed, fingerprint)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${VENDOR_KEY_COLUMNS}`,
        [vendorId, key.label, key.tenantId, key.businessId, key.sealed, key.fingerprint],
      )) as VendorKeyRow[];
      return row;
    });
  }

  async vendorKeys(vendorId: string): Promise<VendorKeyRow[]> {
    await vendorOrThrow(this.ds, vendorId);
    return (await this.ds.query(
      `SELECT ${VENDOR_KEY_COLUMNS} FROM vendor_keys WHERE vendor_id = $1 ORDER BY created_at, id`,
      [vendorId],
    )) as VendorKeyRow[];
  }

  /** Revokes for good (idempotent: a revoked key keeps its reason and time). */
  async revokeVendorKey(vendorId: string, keyId: string): Promise<VendorKeyRow> {
    const [rows] = (await this.ds.query(
      `UPDATE vendor_keys
       SET status = 'revoked',
           status_reason = CASE WHEN status = 'revoked' THEN status_reason ELSE 'revoked by an admin' END,
           updated_at = CASE WHEN status = 'revoked' THEN updated_at ELSE now() END
       WHERE id = $1 AND vendor_id = $2 RETURNING ${VENDOR_KEY_COLUMNS}`,
      [keyId, vendorId],
    )) as [VendorKeyRow[], number];
    if (rows.length === 0) {
      throw ApiException.notFound('key');
    }
    return rows[0];
  }

  /** Puts a quarantined key back in service. A revoked key cannot come back: register it again. */
  async reactivateVendorKey(vendorId: string, keyId: string): Promise<VendorKeyRow> {
    const [rows] = (await this.ds.query(
      `UPDATE vendor_keys SET status = 'active', status_reason = NULL, updated_at = now()
       WHERE id = $1 AND vendor_id = $2 AND status = 'quarantined' RETURNING ${VENDOR_KEY_COLUMNS}`,
      [keyId, vendorId],
    )) as [VendorKeyRow[], number];
    if (rows.length > 0) {
      return rows[0];
    }
    const [key] = (await this.ds.query(
      `SELECT ${VENDOR_KEY_COLUMNS} FROM vendor_keys WHERE id = $1 AND vendor_id = $2`,
      [keyId, vendorId],
    )) as VendorKeyRow[];
    if (!key) {
      throw ApiException.notFound('key');
    }
    if (key.status === 'revoked') {
      throw new ApiException(
        ApiErrorCode.Conflict,
        'the key is revoked; a revoked key is not reactivated (register the secret again)',
      );
    }
    return key; // already active
  }

  /** (vendor, name, version) is unique. */
  async createModel(body: CreateModel): Promise<ModelRow> {
    let rows: ModelRow[];
    try {
      rows = (await this.ds.query(
        `INSERT INTO models (vendor_id, name, category, version, context_window, price_per_1k_input,
                             price_per_1k_output, parser, structured_output)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (vendor_id, name, version) DO NOTHING RETURNING ${MODEL_COLUMNS}`,
        [
          body.vendor_id,
          body.name,
          body.category,
          body.version,
          body.context_window ?? null,
          String(body.price_per_1k_input),
          String(body.price_per_1k_output),
          body.parser ? JSON.stringify(body.parser) : null,
          body.structured_output ?? null,
        ],
      )) as ModelRow[];
    } catch (err) {
      if (pgCode(err) === '23503') {
        throw ApiException.notFound('vendor');
      }
      throw err;
    }
    if (rows.length === 0) {
      const version = body.version ? ` version "${body.version}"` : '';
      throw new ApiException(
        ApiErrorCode.Conflict,
        `the vendor has a model "${body.name}"${version} already`,
      );
    }
    return rows[0];
  }

  async models(vendorId: string | undefined): Promise<ModelRow[]> {
    return (await this.ds.query(
      `SELECT ${MODEL_COLUMNS} FROM models WHERE ($1::uuid IS NULL OR vendor_id = $1) ORDER BY created_at, id`,
      [vendorId ?? null],
    )) as ModelRow[];
  }

  /** `parser` / `structured_output` changed when given; null clears. */
  async patchModel(id: string, body: PatchModel): Promise<ModelRow> {
    const [rows] = (await this.ds.query(
      `UPDATE models
          SET parser = CASE WHEN $2 THEN $3::jsonb ELSE parser END,
              structured_output = CASE WHEN $4 THEN $5 ELSE structured_output END
        WHERE id = $1 RETURNING ${MODEL_COLUMNS}`,
      [
        id,
        body.parser !== undefined,
        body.parser ? JSON.stringify(body.parser) : null,
        body.structured_output !== undefined,
        body.structured_output ?? null,
      ],
    )) as [ModelRow[], number];
    if (rows.length === 0) {
      throw ApiException.notFound('model');
    }
    return rows[0];
  }

  async modelOrThrow(id: string): Promise<ModelRow> {
    const [row] = (await this.ds.query(`SELECT ${MODEL_COLUMNS} FROM models WHERE id = $1`, [
      id,
    ])) as ModelRow[];
    if (!row) {
      throw ApiException.notFound('model');
    }
    return row;
  }

  /**
   * Metered model calls oldest first, after the cursor, `limit` of them (the caller asks one more
   * to know whether a page follows). `action_id` is the version of the delta the call served.
   */
  async usage(query: UsageQuery, after: UsagePosition | undefined, limit: number): Promise<UsageRow[]> {
    if (query.tenant_id) {
      await this.exists('tenants', query.tenant_id, 'tenant');
    }
    if (query.run_id) {
      await this.exists('runs', query.run_id, 'run');
    }
    return (await this.ds.query(
      `SELECT u.id::text AS id, u.tenant_id, u.business_id, u.run_id, d.version AS action_id, u.model_id, u.key_id, u.node,
              u.prompt_tokens, u.completion_tokens, u.total_tokens, u.cost, u.created_at,
              ${USAGE_CURSOR_TIME} AS created_at_text
       FROM model_usage u
       LEFT JOIN state_deltas d ON d.task_id = u.task_id
       WHERE ($1::uuid IS NULL OR u.run_id = $1)
         AND ($2::uuid IS NULL OR u.tenant_id = $2)
         AND ($3::timestamptz IS NULL OR (u.created_at, u.id) > ($3::timestamptz, $4::bigint))
         AND ($6::text IS NULL OR u.business_id = $6)
       ORDER BY u.created_at, u.id
       LIMIT $5`,
      [
        query.run_id ?? null,
        query.tenant_id ?? null,
        after?.created_at ?? null,
        after?.id ?? null,
        limit,
        query.business_id ?? null,
      ],
    )) as UsageRow[];
  }

  private async exists(table: 'tenants' | 'runs', id: string, what: string): Promise<void> {
    const rows = (await this.ds.query(`SELECT 1 FROM ${table} WHERE id = $1`, [id])) as unknown[];
    if (rows.length === 0) {
      throw ApiException.notFound(what);
    }
  }
}

/**
 * The vendor row, or a 404. With `forUpdate` (inside a transaction) the row stays locked until it
 * ends, which serialises creates under one vendor so their duplicate checks hold.
 */
export async function vendorOrThrow(
  q: Queryable,
  vendorId: string,
  opts: { forUpdate?: boolean } = {},
): Promise<VendorRow> {
  const [row] = (await q.query(
    `SELECT ${VENDOR_COLUMNS} FROM vendors WHERE id = $1${opts.forUpdate ? ' FOR UPDATE' : ''}`,
    [vendorId],
  )) as VendorRow[];
  if (!row) {
    throw ApiException.notFound('vendor');
  }
  return row;
}
