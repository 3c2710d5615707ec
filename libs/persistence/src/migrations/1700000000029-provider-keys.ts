import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tenants' API keys for the external providers graph agents call (TavilySearch, YahooFinance),
 * sealed with SecretBox like vendor keys and named by their fingerprint. A tenant has at most one
 * active key per provider; a rotation revokes the old row and adds the new one, so the history
 * stays (who used which key when).
 */
export class ProviderKeys1700000000029 implements MigrationInterface {
  name = 'ProviderKeys1700000000029';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE provider_keys (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        provider text NOT NULL CHECK (provider IN ('tavily', 'yahoo_finance')),
        secret_sealed text NOT NULL,
        fingerprint text NOT NULL,
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'revoked')),
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      );
      CREATE UNIQUE INDEX provider_keys_active_idx ON provider_keys (tenant_id, provider) WHERE status = 'active';
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE provider_keys`);
  }
}
