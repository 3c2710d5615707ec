import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each metered model call gets an id of its own, unique: a call travels in its task's delta and is
 * written by the step that applies it, or by the node service when no delta will carry it — and a
 * delta can arrive more than once. The unique index makes every write of a call after the first a
 * no-op (`ON CONFLICT (call_id) DO NOTHING`), so a call is billed exactly once. Rows written before
 * this column keep NULL (a unique index admits any number of NULLs).
 */
export class ModelUsageCallId1700000000059 implements MigrationInterface {
  name = 'ModelUsageCallId1700000000059';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE model_usage ADD COLUMN call_id uuid;
      CREATE UNIQUE INDEX model_usage_call_idx ON model_usage (call_id);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX model_usage_call_idx; ALTER TABLE model_usage DROP COLUMN call_id`);
  }
}
