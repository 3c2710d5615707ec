import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The run's trace (W3C traceparent of the gateway's `run.create` span, when that trace is kept):
 * whoever starts the run later (its start message, or the end of the run queued before it) starts
 * it in that trace.
 */
export class RunsTraceParent1700000000041 implements MigrationInterface {
  name = 'RunsTraceParent1700000000041';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE runs ADD COLUMN trace_parent text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE runs DROP COLUMN trace_parent`);
  }
}
