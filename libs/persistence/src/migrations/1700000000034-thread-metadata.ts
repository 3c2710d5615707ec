import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A thread's own metadata (the LangGraph-compatible `POST /threads {metadata}`), kept apart from
 * its runs' metadata; `{}` for threads made before.
 */
export class ThreadMetadata1700000000034 implements MigrationInterface {
  name = 'ThreadMetadata1700000000034';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE threads ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}'::jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE threads DROP COLUMN metadata`);
  }
}
