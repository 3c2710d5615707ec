// Test support (not exported): a migrated database of its own per spec file, and ChatModels on it.
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { DEV_SECRET_KEY, SecretBox } from '@switchyard/config';
import { createDataSource, ensureDatabase, runMigrationsLocked } from '@switchyard/persistence';
import type { ChatModels } from './chat-models';
import { createChatModels } from './models.module';

export const box = new SecretBox(DEV_SECRET_KEY);

export async function openTestDatabase(name: string): Promise<DataSource> {
  const url = new URL(process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  url.pathname = `/${name}`;
  await ensureDatabase(url.toString());
  const ds = await createDataSource(url.toString(), { poolSize: 4, name });
  await runMigrationsLocked(ds);
  await ds.query('TRUNCATE vendors, model_usage CASCADE');
  return ds;
}

export function modelsOn(ds: DataSource, llmUrl: string, envKey = 'env-key'): ChatModels {
  return createChatModels(ds, {
    llm: {
      SWITCHYARD_LLM_BASE_URL: llmUrl,
      SWITCHYARD_LLM_API_KEY: envKey,
      SWITCHYARD_LLM_MODEL: 'scripted',
      SWITCHYARD_LLM_TIMEOUT_MS: 10_000,
      SWITCHYARD_LLM_MAX_RETRIES: 0,
    },
    registry: {
      SWITCHYARD_MODEL_REGISTRY_TTL_MS: 0,
      SWITCHYARD_LLM_COOLDOWN_MS: 5_000,
      SWITCHYARD_LLM_MAX_WAIT_MS: 2_000,
    },
    secretKey: DEV_SECRET_KEY,
  });
}

export async function newTenant(ds: DataSource, budget: number | null = null): Promise<string> {
  const [row] = (await ds.query('INSERT INTO tenants (name, token_budget) VALUES ($1, $2) RETURNING id', [
    `t-${randomUUID()}`,
    budget,
  ])) as { id: string }[];
  return row.id;
}

/** Adds a key to the default vendor (seeded from the env) and returns its id. */
export async function addKey(
  ds: DataSource,
  secret: string,
  opts: { label?: string; tenantId?: string; businessId?: string } = {},
): Promise<string> {
  const [row] = (await ds.query(
    `INSERT INTO vendor_keys (vendor_id, label, tenant_id, business_id, secret_sealed, fingerprint)
     SELECT id, $1, $2::uuid, $5, $3, $4 FROM vendors WHERE name = 'default' RETURNING id`,
    [
      opts.label ?? secret,
      opts.tenantId ?? null,
      box.seal(secret),
      SecretBox.fingerprint(secret),
      opts.businessId ?? null,
    ],
  )) as { id: string }[];
  return row.id;
}
