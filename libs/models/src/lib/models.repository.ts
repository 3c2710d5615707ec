import { sql } from 'kysely';
import type { DataSource } from 'typeorm';
import type { MeteredCall } from '@switchyard/contracts';
import {
  type Db,
  type TenantTokens,
  USAGE_WRITE,
  kyselyOf,
  kyselyTransaction,
  preparedQuery,
} from '@switchyard/persistence';
import type { RegistryEndpoint, RegistryKey, RegistryModel, RegistryVendor } from './registry.store';

/** A tenant's token budget and use (budget null: none). */
export interface BudgetRow {
  budget: number | null;
  used: number;
}

/** The vendor, key and model the `SWITCHYARD_LLM_*` variables seed, and the lock that serialises it. */
export interface EnvSeed {
  lock: number;
  vendor: string;
  baseUrl: string | undefined;
  keyLabel: string;
  /** Seals the key's secret (called only when it is written). */
  sealedSecret: () => string;
  fingerprint: string;
  model: string;
  structuredOutput: string | null;
}

/**
 * The model registry's tables, metering (`model_usage`, the tenants' budgets) and the run scope
 * an LLM call reads. The statements an LLM call waits for stay named prepared statements straight
 * through the pool (`preparedQuery`, tools/bench/PROFILE.md rounds 4 and 6); the rest are Kysely.
 */
export class ModelsRepository {
  private readonly db: Db;

  constructor(private readonly ds: DataSource) {
    this.db = kyselyOf(ds);
  }

  /** The registry's revision (bumped by every write to its tables); prepared: read before every call. */
  async registryRevision(): Promise<number | undefined> {
    const [row] = await preparedQuery<{ revision: number }>(
      this.ds,
      'SELECT revision::float8 AS revision FROM registry_revision',
    );
    return row?.revision;
  }

  /** The tenant's budget and tokens used; prepared: read before a call of a tenant with a budget. */
  async budget(tenantId: string): Promise<BudgetRow | undefined> {
    const [row] = await preparedQuery<BudgetRow>(
      this.ds,
      'SELECT token_budget::float8 AS budget, tokens_used::float8 AS used FROM tenants WHERE id = $1',
      [tenantId],
    );
    return row;
  }

  /**
   * The calls written (USAGE_WRITE: each call once, however often it comes, and each tenant's
   * tokens added), answering each tenant's budget and use. Prepared, straight through the pool.
   */
  recordUsage(calls: MeteredCall[]): Promise<TenantTokens[]> {
    return preparedQuery<TenantTokens>(this.ds, USAGE_WRITE.sql, USAGE_WRITE.params(calls));
  }

  /**
   * A run's tenant, pinned agent config and business id, within the tenant a task works for (when
   * the call names one: another tenant's run reads as none); prepared: read at a run's first call.
   */
  async runScope(
    runId: string,
    tenantId: string | undefined,
  ): Promise<{ tenant_id: string; agent_config: unknown; business_id: string | null } | undefined> {
    const [row] = await preparedQuery<{
      tenant_id: string;
      agent_config: unknown;
      business_id: string | null;
    }>(
      this.ds,
      `SELECT tenant_id, agent_config, metadata->>'business_id' AS business_id
         FROM runs WHERE id = $1 AND ($2::uuid IS NULL OR tenant_id = $2::uuid)`,
      [runId, tenantId ?? null],
    );
    return row;
  }

  /** Quarantines the key while it is active (`reason`: why, as stored). */
  async quarantineKey(keyId: string, reason: string): Promise<void> {
    await this.db
      .updateTable('vendor_keys')
      .set((eb) => ({ status: 'quarantined', status_reason: reason, updated_at: eb.fn('now') }))
      .where('id', '=', keyId)
      .where('status', '=', 'active')
      .execute();
  }

  /**
   * Seeds the env's vendor, key and model in one transaction under `seed.lock` (a transaction
   * advisory lock): the env owns the vendor's URL and its key (a new secret replaces the old and
   * re-activates it); a structured-output mode, when given, owns the model's.
   */
  async seedFromEnv(seed: EnvSeed): Promise<void> {
    await kyselyTransaction(this.ds, async (db) => {
      await sql`SELECT pg_advisory_xact_lock(${seed.lock})`.execute(db);
      const vendor = await db
        .insertInto('vendors')
        .values({ name: seed.vendor, kind: 'openai', base_url: seed.baseUrl ?? null })
        .onConflict((oc) =>
          oc.column('name').doUpdateSet((eb) => ({ base_url: eb.ref('excluded.base_url') })),
        )
        .returning('id')
        .executeTakeFirstOrThrow();
      const key = await db
        .selectFrom('vendor_keys')
        .select(['id', 'fingerprint'])
        .where('vendor_id', '=', vendor.id)
        .where('label', '=', seed.keyLabel)
        .where('tenant_id', 'is', null)
        .orderBy('created_at')
        .limit(1)
        .executeTakeFirst();
      if (!key) {
        await db
          .insertInto('vendor_keys')
          .values({
            vendor_id: vendor.id,
            label: seed.keyLabel,
            secret_sealed: seed.sealedSecret(),
            fingerprint: seed.fingerprint,
          })
          .execute();
      } else if (key.fingerprint !== seed.fingerprint) {
        await db
          .updateTable('vendor_keys')
          .set((eb) => ({
            secret_sealed: seed.sealedSecret(),
            fingerprint: seed.fingerprint,
            status: 'active',
            status_reason: null,
            updated_at: eb.fn('now'),
          }))
          .where('id', '=', key.id)
          .execute();
      }
      await db
        .insertInto('models')
        .values({
          vendor_id: vendor.id,
          name: seed.model,
          category: 'text',
          structured_output: seed.structuredOutput,
        })
        .onConflict((oc) =>
          oc.columns(['vendor_id', 'name', 'version']).doUpdateSet((eb) => ({
            structured_output: eb.fn.coalesce('excluded.structured_output', 'models.structured_output'),
          })),
        )
        .execute();
    });
  }

  /**
   * Every vendor, active key, model and endpoint, and the revision, in one statement on one
   * connection: every process reloads this each TTL, and four queries at once from every replica
   * of every LLM service add up against Postgres' connection limit.
   */
  async loadRegistry(): Promise<{
    revision: number | null;
    vendors: RegistryVendor[];
    keys: RegistryKey[];
    models: RegistryModel[];
    endpoints: RegistryEndpoint[];
  }> {
    const { rows } = await sql<{
      revision: number | null;
      vendors: RegistryVendor[];
      keys: RegistryKey[];
      models: RegistryModel[];
      endpoints: RegistryEndpoint[];
    }>`
      SELECT
        (SELECT revision::float8 FROM registry_revision) AS revision,
        (SELECT coalesce(json_agg(v), '[]') FROM (SELECT id, name, kind, base_url FROM vendors) v) AS vendors,
        (SELECT coalesce(json_agg(k), '[]') FROM (
           SELECT id, vendor_id, label, tenant_id, business_id, secret_sealed, fingerprint, status
           FROM vendor_keys WHERE status = 'active' ORDER BY created_at, id) k) AS keys,
        (SELECT coalesce(json_agg(m), '[]') FROM (
           SELECT id, vendor_id, name, category, version, price_per_1k_input::float8 AS price_per_1k_input,
                  price_per_1k_output::float8 AS price_per_1k_output, parser, structured_output
           FROM models ORDER BY created_at, id) m) AS models,
        (SELECT coalesce(json_agg(e), '[]') FROM (
           SELECT vendor_id, url, categories FROM vendor_endpoints ORDER BY created_at) e) AS endpoints
    `.execute(this.db);
    return rows[0];
  }
}
