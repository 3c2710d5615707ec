import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Fair dispatch (docs/adr/0012, fairness between tenants): a tenant's `weight` (its share
 * of a busy node service against other busy tenants; 1 by default) and a run's `priority`
 * (`interactive` runs go before the same tenant's `batch` runs at every node).
 */
export class FairDispatch1700000000042 implements MigrationInterface {
  name = 'FairDispatch1700000000042';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE tenants ADD COLUMN weight double precision NOT NULL DEFAULT 1
         CONSTRAINT tenants_weight_range CHECK (weight > 0 AND weight <= 1000)`,
    );
    await q.query(
      `ALTER TABLE runs ADD COLUMN priority text NOT NULL DEFAULT 'interactive'
         CONSTRAINT runs_priority_known CHECK (priority IN ('interactive', 'batch'))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE runs DROP COLUMN priority`);
    await q.query(`ALTER TABLE tenants DROP COLUMN weight`);
  }
}
