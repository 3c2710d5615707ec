import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The long-term store (LangGraph's `client.store`): a tenant's JSON documents by namespace path and
 * key, with an optional TTL and, when indexed, the unit embedding of their indexed text.
 */
export class StoreItems1700000000050 implements MigrationInterface {
  name = 'StoreItems1700000000050';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE store_items (
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        namespace text[] NOT NULL,
        key text NOT NULL,
        value jsonb NOT NULL,
        embedding float4[],
        embedding_model text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        ttl_minutes double precision,
        expires_at timestamptz,
        PRIMARY KEY (tenant_id, namespace, key)
      );
      CREATE INDEX store_items_expires_idx ON store_items (expires_at) WHERE expires_at IS NOT NULL;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE store_items`);
  }
}
