import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Crons (LangGraph's `client.crons`): a run created on a schedule — on a thread, or stateless on a
 * thread made for each firing. `next_run_at` is the next firing (null: none left); a firing is
 * claimed by one gateway replica (row lock) and its run is idempotent (request id = cron + time).
 */
export class Crons1700000000053 implements MigrationInterface {
  name = 'Crons1700000000053';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE crons (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        assistant_id text NOT NULL,
        thread_id uuid REFERENCES threads(id) ON DELETE CASCADE,
        schedule text NOT NULL,
        timezone text NOT NULL DEFAULT 'UTC',
        payload jsonb NOT NULL,
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        end_time timestamptz,
        enabled boolean NOT NULL DEFAULT true,
        next_run_at timestamptz,
        last_run_id uuid,
        last_error text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX crons_due_idx ON crons (next_run_at) WHERE enabled AND next_run_at IS NOT NULL;
      CREATE INDEX crons_tenant_idx ON crons (tenant_id, created_at);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE crons`);
  }
}
