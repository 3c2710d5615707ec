import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Per-tenant data sources the `sql_query` tool reads (the DSN is stored sealed with SecretBox,
 * never in clear), and `tool_outputs`: the full output of a tool result that was truncated in
 * its action, fetched by reference (`tool-output:<id>`). One output per task, so a redelivered
 * task overwrites its own row instead of adding one.
 */
export class DataSources1700000000022 implements MigrationInterface {
  name = 'DataSources1700000000022';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE data_sources (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        name text NOT NULL CHECK (name ~ '^[A-Za-z][A-Za-z0-9_-]*$' AND length(name) <= 64),
        kind text NOT NULL CHECK (kind IN ('postgres')),
        dsn_sealed text NOT NULL,
        options jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (tenant_id, name)
      );
      CREATE TABLE tool_outputs (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        run_id uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        task_id uuid NOT NULL UNIQUE,
        tool text NOT NULL,
        content jsonb NOT NULL,
        bytes integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX tool_outputs_run_idx ON tool_outputs (run_id);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE tool_outputs; DROP TABLE data_sources`);
  }
}
