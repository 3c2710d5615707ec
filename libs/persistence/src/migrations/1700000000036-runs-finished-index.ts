import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The retention job finds runs by when they finished. */
export class RunsFinishedIndex1700000000036 implements MigrationInterface {
  name = 'RunsFinishedIndex1700000000036';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX runs_finished_idx ON runs (finished_at) WHERE finished_at IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX runs_finished_idx`);
  }
}
