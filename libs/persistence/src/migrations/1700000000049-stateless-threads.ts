import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A LangGraph stateless run's thread (made for the run, `on_completion: "delete"`) is deleted once
 * its runs have ended: the orchestrator sweeps the flagged threads.
 */
export class StatelessThreads1700000000049 implements MigrationInterface {
  name = 'StatelessThreads1700000000049';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE threads ADD COLUMN delete_when_done boolean NOT NULL DEFAULT false`);
    await q.query(`CREATE INDEX threads_delete_when_done_idx ON threads (created_at) WHERE delete_when_done`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX threads_delete_when_done_idx`);
    await q.query(`ALTER TABLE threads DROP COLUMN delete_when_done`);
  }
}
