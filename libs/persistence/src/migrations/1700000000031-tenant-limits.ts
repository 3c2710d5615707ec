import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A tenant's own limits (null: the gateway's and orchestrator's defaults): request rate and
 * burst, runs queued or under way, and runs running at once (the rest wait queued, so one
 * tenant's burst cannot fill the task queues ahead of everyone else).
 */
export class TenantLimits1700000000031 implements MigrationInterface {
  name = 'TenantLimits1700000000031';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE tenants
      ADD COLUMN rate_limit_per_second integer CHECK (rate_limit_per_second > 0),
      ADD COLUMN rate_limit_burst integer CHECK (rate_limit_burst > 0),
      ADD COLUMN max_active_runs integer CHECK (max_active_runs > 0),
      ADD COLUMN max_running_runs integer CHECK (max_running_runs > 0)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE tenants DROP COLUMN rate_limit_per_second, DROP COLUMN rate_limit_burst,
      DROP COLUMN max_active_runs, DROP COLUMN max_running_runs`);
  }
}
