import { Inject, Injectable } from '@nestjs/common';
import { type Expression, type SqlBool, sql } from 'kysely';
import { DatabaseError } from 'pg';
import { DataSource } from 'typeorm';
import { type Db, kyselyOf, kyselyTransaction } from '@switchyard/persistence';
import type { UsageQuery } from '@switchyard/contracts';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import type { CreateEndpoint, CreateModel, CreateVendor, PatchModel } from './registry.schemas';
import type { EndpointRow, ModelRow, UsageRow, VendorKeyRow, VendorRow } from './registry.views';
import { USAGE_CURSOR_TIME, type UsagePosition } from './usage-cursor';

/** A vendor key as stored: the secret already sealed, named by its fingerprint. */
export interface NewVendorKey {
  label: string | null;
  tenantId: string | null;
  businessId: string | null;
  sealed: string;
  fingerprint: string;
}

// The columns of each row type (registry.views.ts); a vendor key's never include `secret_sealed`.
const VENDOR_COLUMNS = ['id', 'name', 'kind', 'base_url', 'created_at'] as const;
const ENDPOINT_COLUMNS = ['id', 'vendor_id', 'url', 'categories', 'created_at'] as const;
const VENDOR_KEY_COLUMNS = [
  'id',
  'vendor_id',
  'label',
  'tenant_id',
  'business_id',
  'fingerprint',
  'status',
  'status_reason',
  'created_at',
  'updated_at',
] as const;
const MODEL_COLUMNS = [
  'id',
  'vendor_id',
  'name',
  'category',
  'version',
  'context_window',
  'price_per_1k_input',
  'price_per_1k_output',
  'parser',
  'structured_output',
  'created_at',
] as const;

// Rows as stored, narrowed once per column: the text and jsonb columns hold only what the API wrote.
type Stored<R, K extends keyof R> = Omit<R, K> & { [C in K]: unknown };
const vendorRow = (r: Stored<VendorRow, 'kind'>): VendorRow => ({ ...r, kind: r.kind as VendorRow['kind'] });
const endpointRow = (r: Stored<EndpointRow, 'categories'>): EndpointRow => ({
  ...r,
  categories: r.categories as EndpointRow['categories'],
});
const vendorKeyRow = (r: Stored<VendorKeyRow, 'status'>): VendorKeyRow => ({
  ...r,
  status: r.status as VendorKeyRow['status'],
});
const modelRow = (r: Stored<ModelRow, 'category' | 'parser' | 'structured_output'>): ModelRow => ({
  ...r,
  category: r.category as ModelRow['category'],
  parser: r.parser as ModelRow['parser'],
  structured_output: r.structured_output as ModelRow['structured_output'],
});

/**
 * The model registry's queries (vendors, their endpoints and keys, models, metered usage). Not
 * found and conflicts are answered here as the API's errors.
 */
@Injectable()
export class RegistryRepository {
  private readonly db: Db;

  constructor(@Inject(DataSource) private readonly ds: DataSource) {
    this.db = kyselyOf(ds);
  }

  async createVendor(body: CreateVendor): Promise<VendorRow> {
    const row = await this.db
      .insertInto('vendors')
      .values({ name: body.name, kind: body.kind, base_url: body.base_url ?? null })
      .onConflict((oc) => oc.column('name').doNothing())
      .returning(VENDOR_COLUMNS)
      .executeTakeFirst();
    if (!row) {
      throw new ApiException(ApiErrorCode.Conflict, `a vendor named "${body.name}" exists`);
    }
    return vendorRow(row);
  }

  async vendors(): Promise<VendorRow[]> {
    const rows = await this.db
      .selectFrom('vendors')
      .select(VENDOR_COLUMNS)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(vendorRow);
  }

  vendorOrThrow(vendorId: string): Promise<VendorRow> {
    return vendorOrThrow(this.db, vendorId);
  }

  /** One URL per vendor: a second endpoint with the same URL is a conflict, not a copy. */
  async createEndpoint(vendorId: string, body: CreateEndpoint): Promise<EndpointRow> {
    return kyselyTransaction(this.ds, async (db) => {
      await vendorOrThrow(db, vendorId, { forUpdate: true });
      const dup = await db
        .selectFrom('vendor_endpoints')
        .select('id')
        .where('vendor_id', '=', vendorId)
        .where('url', '=', body.url)
        .executeTakeFirst();
      if (dup) {
        throw new ApiException(ApiErrorCode.Conflict, `the vendor has this endpoint already (${dup.id})`);
      }
      const row = await db
        .insertInto('vendor_endpoints')
        .values({ vendor_id: vendorId, url: body.url, categories: body.categories })
        .returning(ENDPOINT_COLUMNS)
        .executeTakeFirstOrThrow();
      return endpointRow(row);
    });
  }

  async endpoints(vendorId: string): Promise<EndpointRow[]> {
    await vendorOrThrow(this.db, vendorId);
    const rows = await this.db
      .selectFrom('vendor_endpoints')
      .select(ENDPOINT_COLUMNS)
      .where('vendor_id', '=', vendorId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(endpointRow);
  }

  /** The same secret (not revoked) twice for one vendor, tenant and business is a conflict. */
  async createVendorKey(vendorId: string, key: NewVendorKey): Promise<VendorKeyRow> {
    return kyselyTransaction(this.ds, async (db) => {
      await vendorOrThrow(db, vendorId, { forUpdate: true });
      if (key.tenantId) {
        const tenant = await db
          .selectFrom('tenants')
          .select('id')
          .where('id', '=', key.tenantId)
          .executeTakeFirst();
        if (!tenant) {
          throw ApiException.notFound('tenant');
        }
      }
      const dup = await db
        .selectFrom('vendor_keys')
        .select('id')
        .where('vendor_id', '=', vendorId)
        .where('fingerprint', '=', key.fingerprint)
        .where('tenant_id', 'is not distinct from', key.tenantId)
        .where('business_id', 'is not distinct from', key.businessId)
        .where('status', '<>', 'revoked')
        .executeTakeFirst();
      if (dup) {
        throw new ApiException(
          ApiErrorCode.Conflict,
          `this key (fingerprint ${key.fingerprint}) is registered for the vendor already: ${dup.id}`,
        );
      }
      const row = await db
        .insertInto('vendor_keys')
        .values({
          vendor_id: vendorId,
          label: key.label,
          tenant_id: key.tenantId,
          business_id: key.businessId,
          secret_sealed: key.sealed,
          fingerprint: key.fingerprint,
        })
        .returning(VENDOR_KEY_COLUMNS)
        .executeTakeFirstOrThrow();
      return vendorKeyRow(row);
    });
  }

  async vendorKeys(vendorId: string): Promise<VendorKeyRow[]> {
    await vendorOrThrow(this.db, vendorId);
    const rows = await this.db
      .selectFrom('vendor_keys')
      .select(VENDOR_KEY_COLUMNS)
      .where('vendor_id', '=', vendorId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(vendorKeyRow);
  }

  /** Revokes for good (idempotent: a revoked key keeps its reason and time). */
  async revokeVendorKey(vendorId: string, keyId: string): Promise<VendorKeyRow> {
    const row = await this.db
      .updateTable('vendor_keys')
      .set((eb) => {
        const revoked = eb('status', '=', 'revoked');
        return {
          status: 'revoked',
          status_reason: eb
            .case()
            .when(revoked)
            .then(eb.ref('status_reason'))
            .else('revoked by an admin')
            .end(),
          updated_at: eb.case().when(revoked).then(eb.ref('updated_at')).else(eb.fn<Date>('now')).end(),
        };
      })
      .where('id', '=', keyId)
      .where('vendor_id', '=', vendorId)
      .returning(VENDOR_KEY_COLUMNS)
      .executeTakeFirst();
    if (!row) {
      throw ApiException.notFound('key');
    }
    return vendorKeyRow(row);
  }

  /** Puts a quarantined key back in service. A revoked key cannot come back: register it again. */
  async reactivateVendorKey(vendorId: string, keyId: string): Promise<VendorKeyRow> {
    const reactivated = await this.db
      .updateTable('vendor_keys')
      .set((eb) => ({ status: 'active', status_reason: null, updated_at: eb.fn('now') }))
      .where('id', '=', keyId)
      .where('vendor_id', '=', vendorId)
      .where('status', '=', 'quarantined')
      .returning(VENDOR_KEY_COLUMNS)
      .executeTakeFirst();
    if (reactivated) {
      return vendorKeyRow(reactivated);
    }
    const key = await this.db
      .selectFrom('vendor_keys')
      .select(VENDOR_KEY_COLUMNS)
      .where('id', '=', keyId)
      .where('vendor_id', '=', vendorId)
      .executeTakeFirst();
    if (!key) {
      throw ApiException.notFound('key');
    }
    if (key.status === 'revoked') {
      throw new ApiException(
        ApiErrorCode.Conflict,
        'the key is revoked; a revoked key is not reactivated (register the secret again)',
      );
    }
    return vendorKeyRow(key); // already active
  }

  /** (vendor, name, version) is unique. */
  async createModel(body: CreateModel): Promise<ModelRow> {
    let row;
    try {
      row = await this.db
        .insertInto('models')
        .values({
          vendor_id: body.vendor_id,
          name: body.name,
          category: body.category,
          version: body.version,
          context_window: body.context_window ?? null,
          price_per_1k_input: String(body.price_per_1k_input),
          price_per_1k_output: String(body.price_per_1k_output),
          parser: body.parser ? JSON.stringify(body.parser) : null,
          structured_output: body.structured_output ?? null,
        })
        .onConflict((oc) => oc.columns(['vendor_id', 'name', 'version']).doNothing())
        .returning(MODEL_COLUMNS)
        .executeTakeFirst();
    } catch (err) {
      // 23503: the vendor_id names no vendor.
      if (err instanceof DatabaseError && err.code === '23503') {
        throw ApiException.notFound('vendor');
      }
      throw err;
    }
    if (!row) {
      const version = body.version ? ` version "${body.version}"` : '';
      throw new ApiException(
        ApiErrorCode.Conflict,
        `the vendor has a model "${body.name}"${version} already`,
      );
    }
    return modelRow(row);
  }

  async models(vendorId: string | undefined): Promise<ModelRow[]> {
    const rows = await this.db
      .selectFrom('models')
      .select(MODEL_COLUMNS)
      .$if(vendorId !== undefined, (qb) => qb.where('vendor_id', '=', vendorId as string))
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(modelRow);
  }

  /** `parser` / `structured_output` changed when given; null clears. */
  async patchModel(id: string, body: PatchModel): Promise<ModelRow> {
    const row = await this.db
      .updateTable('models')
      .set((eb) => ({
        // A field not given is set to itself: the statement is the same UPDATE either way.
        parser:
          body.parser === undefined ? eb.ref('parser') : body.parser ? JSON.stringify(body.parser) : null,
        structured_output:
          body.structured_output === undefined ? eb.ref('structured_output') : body.structured_output,
      }))
      .where('id', '=', id)
      .returning(MODEL_COLUMNS)
      .executeTakeFirst();
    if (!row) {
      throw ApiException.notFound('model');
    }
    return modelRow(row);
  }

  async modelOrThrow(id: string): Promise<ModelRow> {
    const row = await this.db
      .selectFrom('models')
      .select(MODEL_COLUMNS)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) {
      throw ApiException.notFound('model');
    }
    return modelRow(row);
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
    return this.db
      .selectFrom('model_usage as u')
      .leftJoin('state_deltas as d', 'd.task_id', 'u.task_id')
      .select((eb) => [
        eb.cast<string>('u.id', 'text').as('id'),
        'u.tenant_id',
        'u.business_id',
        'u.run_id',
        'd.version as action_id',
        'u.model_id',
        'u.key_id',
        'u.node',
        'u.prompt_tokens',
        'u.completion_tokens',
        'u.total_tokens',
        'u.cost',
        'u.created_at',
        sql<string>`${sql.raw(USAGE_CURSOR_TIME)}`.as('created_at_text'),
      ])
      .where((eb) => {
        const filters: Expression<SqlBool>[] = [];
        if (query.run_id !== undefined) {
          filters.push(eb('u.run_id', '=', query.run_id));
        }
        if (query.tenant_id !== undefined) {
          filters.push(eb('u.tenant_id', '=', query.tenant_id));
        }
        if (after) {
          // Keyset: a row comparison, the cursor's time exact to the microsecond.
          filters.push(
            sql<SqlBool>`(u.created_at, u.id) > (${after.created_at}::timestamptz, ${after.id}::bigint)`,
          );
        }
        if (query.business_id !== undefined) {
          filters.push(eb('u.business_id', '=', query.business_id));
        }
        return eb.and(filters);
      })
      .orderBy('u.created_at')
      .orderBy('u.id')
      .limit(limit)
      .execute();
  }

  private async exists(table: 'tenants' | 'runs', id: string, what: string): Promise<void> {
    const row = await this.db
      .selectFrom(table)
      .select(sql.lit(1).as('one'))
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) {
      throw ApiException.notFound(what);
    }
  }
}

/**
 * The vendor row, or a 404. With `forUpdate` (inside a transaction) the row stays locked until it
 * ends, which serialises creates under one vendor so their duplicate checks hold.
 */
export async function vendorOrThrow(
  db: Db,
  vendorId: string,
  opts: { forUpdate?: boolean } = {},
): Promise<VendorRow> {
  const row = await db
    .selectFrom('vendors')
    .select(VENDOR_COLUMNS)
    .where('id', '=', vendorId)
    .$if(opts.forUpdate === true, (qb) => qb.forUpdate())
    .executeTakeFirst();
  if (!row) {
    throw ApiException.notFound('vendor');
  }
  return vendorRow(row);
}
