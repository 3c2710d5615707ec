import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Agents with an editable draft and immutable published versions; a run pins the config it started with. */
export class Agents1700000000004 implements MigrationInterface {
  name = 'Agents1700000000004';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE agents (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        name text NOT NULL,
        draft jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz
      );
      CREATE INDEX agents_tenant_idx ON agents (tenant_id) WHERE deleted_at IS NULL;
      CREATE TABLE agent_versions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
        version integer NOT NULL,
        config jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (agent_id, version)
      );
      ALTER TABLE runs ADD COLUMN agent_version_id uuid, ADD COLUMN agent_config jsonb;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE runs DROP COLUMN agent_version_id, DROP COLUMN agent_config`);
    await q.query(`DROP TABLE agent_versions, agents`);
  }
}
