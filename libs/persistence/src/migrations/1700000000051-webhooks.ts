import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks: a run created with a `webhook` gets one delivery row at once, POSTed (signed with its
 * tenant's secret, sealed at rest) once the run has ended, retried with back-off until delivered
 * or given up.
 */
export class Webhooks1700000000051 implements MigrationInterface {
  name = 'Webhooks1700000000051';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE tenants ADD COLUMN webhook_secret text;
      CREATE TABLE webhook_deliveries (
        run_id uuid PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
        tenant_id uuid NOT NULL,
        url text NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        next_at timestamptz NOT NULL DEFAULT now(),
        delivered_at timestamptz,
        gave_up_at timestamptz,
        last_error text,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_at)
        WHERE delivered_at IS NULL AND gave_up_at IS NULL;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webhook_deliveries; ALTER TABLE tenants DROP COLUMN webhook_secret`);
  }
}
