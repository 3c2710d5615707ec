import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Model registry: vendors with their API keys (sealed with SecretBox, never stored in clear),
 * endpoints and models; per-call metering in model_usage; per-tenant token budgets.
 */
export class ModelRegistry1700000000020 implements MigrationInterface {
  name = 'ModelRegistry1700000000020';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE vendors (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name text NOT NULL UNIQUE,
        kind text NOT NULL CHECK (kind IN ('openai','anthropic','ollama')),
        base_url text,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE vendor_keys (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        vendor_id uuid NOT NULL REFERENCES vendors(id) ON DELETE CASCADE,
        label text,
        tenant_id uuid REFERENCES tenants(id) ON DELETE CASCADE,
        secret_sealed text NOT NULL,
        fingerprint text NOT NULL,
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active','quarantined','revoked')),
        status_reason text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX vendor_keys_vendor_idx ON vendor_keys (vendor_id, status);
      CREATE TABLE vendor_endpoints (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        vendor_id uuid NOT NULL REFERENCES vendors(id) ON DELETE CASCADE,
        url text NOT NULL,
        categories text[] NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE models (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        vendor_id uuid NOT NULL REFERENCES vendors(id) ON DELETE CASCADE,
        name text NOT NULL,
        category text NOT NULL CHECK (category IN ('text','reasoning','embedding','multimodal','image','video')),
        version text NOT NULL DEFAULT '',
        context_window integer,
        price_per_1k_input numeric(14,6) NOT NULL DEFAULT 0,
        price_per_1k_output numeric(14,6) NOT NULL DEFAULT 0,
        parser jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (vendor_id, name, version)
      );
      CREATE TABLE model_usage (
        id bigserial PRIMARY KEY,
        tenant_id uuid NOT NULL,
        run_id uuid,
        task_id uuid,
        node text,
        attempt integer,
        model_id uuid REFERENCES models(id) ON DELETE SET NULL,
        key_id uuid REFERENCES vendor_keys(id) ON DELETE SET NULL,
        prompt_tokens integer NOT NULL,
        completion_tokens integer NOT NULL,
        total_tokens integer NOT NULL,
        cost numeric(14,6) NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX model_usage_run_idx ON model_usage (run_id);
      CREATE INDEX model_usage_tenant_idx ON model_usage (tenant_id, created_at);
      ALTER TABLE tenants ADD COLUMN token_budget bigint, ADD COLUMN tokens_used bigint NOT NULL DEFAULT 0;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE tenants DROP COLUMN token_budget, DROP COLUMN tokens_used`);
    await q.query(`DROP TABLE model_usage, models, vendor_endpoints, vendor_keys, vendors`);
  }
}
