import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * MCP servers a tenant connects: their tools become nodes `mcp.<name>.<tool>`, so `name` is
 * unique across tenants and a lower-case identifier. Environment and headers may carry
 * credentials: they are stored sealed (SecretBox), never in clear.
 */
export class McpServers1700000000023 implements MigrationInterface {
  name = 'McpServers1700000000023';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE mcp_servers (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        name text NOT NULL UNIQUE CHECK (name ~ '^[a-z][a-z0-9]*([-_][a-z0-9]+)*$' AND length(name) <= 32),
        transport text NOT NULL CHECK (transport IN ('stdio','http')),
        command text,
        args jsonb NOT NULL DEFAULT '[]',
        env_sealed text,
        url text,
        headers_sealed text,
        timeout_ms integer NOT NULL DEFAULT 30000,
        max_output_bytes integer NOT NULL DEFAULT 100000,
        enabled boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((transport = 'stdio' AND command IS NOT NULL AND url IS NULL)
            OR (transport = 'http' AND url IS NOT NULL AND command IS NULL))
      );
      CREATE INDEX mcp_servers_tenant_idx ON mcp_servers (tenant_id);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE mcp_servers`);
  }
}
