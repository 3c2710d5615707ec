import type { MigrationInterface, QueryRunner } from 'typeorm';

/** A delayed run (`after_seconds`) stays queued until `not_before`; the orchestrator starts it then. */
export class DelayedRuns1700000000052 implements MigrationInterface {
  name = 'DelayedRuns1700000000052';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE runs ADD COLUMN not_before timestamptz`);
    await q.query(
      `CREATE INDEX runs_delayed_idx ON runs (not_before) WHERE status = 'queued' AND not_before IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX runs_delayed_idx`);
    await q.query(`ALTER TABLE runs DROP COLUMN not_before`);
  }
}
