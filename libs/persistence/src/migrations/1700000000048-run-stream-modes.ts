import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The LangGraph stream modes a run was created with: a join that names no `stream_mode` replays
 * these, as LangGraph's own server does (null: a run created through another API).
 */
export class RunStreamModes1700000000048 implements MigrationInterface {
  name = 'RunStreamModes1700000000048';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE runs ADD COLUMN stream_modes text[]`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE runs DROP COLUMN stream_modes`);
  }
}
