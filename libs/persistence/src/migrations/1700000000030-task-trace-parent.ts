import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The W3C traceparent a task was dispatched under: a task published again (by the outbox sweep
 * or the reaper, outside the step that made it) stays in its run's trace.
 */
export class TaskTraceParent1700000000030 implements MigrationInterface {
  name = 'TaskTraceParent1700000000030';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE run_tasks ADD COLUMN trace_parent text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE run_tasks DROP COLUMN trace_parent`);
  }
}
