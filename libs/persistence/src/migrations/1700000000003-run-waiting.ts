import type { MigrationInterface, QueryRunner } from 'typeorm';

/** What a waiting run waits for: the human task, its question and the input schema of the answer. */
export class RunWaiting1700000000003 implements MigrationInterface {
  name = 'RunWaiting1700000000003';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE runs ADD COLUMN waiting jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE runs DROP COLUMN waiting`);
  }
}
