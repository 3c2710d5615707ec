import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Seed 003's tool types for MCP tools: `tool_types` maps a tool of the server to its types
 * (`["output"]`, `["call", "output"]`); a tool not named there is a `call` tool, as before.
 */
export class McpToolTypes1700000000037 implements MigrationInterface {
  name = 'McpToolTypes1700000000037';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE mcp_servers ADD COLUMN tool_types jsonb NOT NULL DEFAULT '{}'::jsonb
      CHECK (jsonb_typeof(tool_types) = 'object')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE mcp_servers DROP COLUMN tool_types`);
  }
}
