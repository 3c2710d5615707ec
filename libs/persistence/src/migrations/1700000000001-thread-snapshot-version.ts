import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Remembers each thread's latest snapshot, so a long run snapshots every N deltas. */
export class ThreadSnapshotVersion1700000000001 implements MigrationInterface {
  name = 'ThreadSnapshotVersion1700000000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE threads ADD COLUMN snapshot_version integer NOT NULL DEFAULT 0`);
    await q.query(
      `CREATE INDEX runs_thread_queued_idx ON runs (thread_id, created_at) WHERE status = 'queued'`,
    );
    await q.query(`CREATE INDEX run_tasks_deadline_idx ON run_tasks (deadline) WHERE status = 'pending'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX run_tasks_deadline_idx`);
    await q.query(`DROP INDEX runs_thread_queued_idx`);
    await q.query(`ALTER TABLE threads DROP COLUMN snapshot_version`);
  }
}
