// Test support (not exported): a migrated database of its own per spec file, and ChatModels on it.
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { DEV_SECRET_KEY, SecretBox } from '@switchyard/config';
import { sql } from 'kysely';
import { createDataSource, ensureDatabase, kyselyOf, runMigrationsLocked } from '@switchyard/persistence';
import type { ChatModels } from './chat-models';
import { createChatModels } from './models.module';

export const box = new SecretBox(DEV_SECRET_KEY);

export async function openTestDatabase(name: string): Promise<DataSource> {
  const url = new URL(process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  url.pathname = `/${name}`;
  await ensureDatabase(url.toString());
  const ds = await createDataSource(url.toString(), { poolSize: 4, name });
  await runMigrationsLocked(ds);
  await sql`TRUNCATE vendors, model_usage CASCADE`.execute(kyselyOf(ds));
  return ds;
}

/**
 * `ttl` and `lease`: SWITCHYARD_MODEL_REGISTRY_TTL_MS and _LEASE_MS (0 by default: the specs write
 * the tables directly and expect the next call to see it).
 */
export function modelsOn(
  ds: DataSource,
  llmUrl: string,
  envKey = 'env-key',
  { ttl = 0, lease = 0 }: { ttl?: number; lease?: number } = {},
): ChatModels {
  return createChatModels(ds, {
    llm: {
      SWITCHYARD_LLM_BASE_URL: llmUrl,
      SWITCHYARD_LLM_API_KEY: envKey,
      SWITCHYARD_LLM_MODEL: 'scripted',
      SWITCHYARD_LLM_TIMEOUT_MS: 10_000,
      SWITCHYARD_LLM_MAX_RETRIES: 0,
    },
    registry: {
      SWITCHYARD_MODEL_REGISTRY_TTL_MS: ttl,
      SWITCHYARD_MODEL_REGISTRY_LEASE_MS: lease,
      SWITCHYARD_LLM_COOLDOWN_MS: 5_000,
      SWITCHYARD_LLM_MAX_WAIT_MS: 2_000,
    },
    secretKey: DEV_SECRET_KEY,
  });
}

export async function newTenant(ds: DataSource, budget: number | null = null): Promise<string> {
  const row = await kyselyOf(ds)
    .insertInto('tenants')
    .values({ name: `t-${randomUUID()}`, token_budget: budget })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Adds a key to the default vendor (seeded from the env) and returns its id. */
export async function addKey(
  ds: DataSource,
  secret: string,
  opts: { label?: string; tenantId?: string; businessId?: string } = {},
): Promise<string> {
  const row = await kyselyOf(ds)
    .insertInto('vendor_keys')
    .columns(['vendor_id', 'label', 'tenant_id', 'business_id', 'secret_sealed', 'fingerprint'])
    .expression((eb) =>
      eb
        .selectFrom('vendors')
        .select([
          'id',
          eb.val(opts.label ?? secret).as('label'),
          sql<string | null>`${opts.tenantId ?? null}::uuid`.as('tenant_id'),
          eb.val(opts.businessId ?? null).as('business_id'),
          eb.val(box.seal(secret)).as('secret_sealed'),
          eb.val(SecretBox.fingerprint(secret)).as('fingerprint'),
        ])
        .where('name', '=', 'default'),
    )
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}
