import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A run's task deadlines per node (its agent's `node_timeouts_ms`, pinned when the run is made):
 * in a column of their own, so the orchestrator reads them with the run's row at every step
 * without reading the agent's whole configuration (a graph agent's canvas). Null: none set.
 */
export class NodeTimeouts1700000000054 implements MigrationInterface {
  name = 'NodeTimeouts1700000000054';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE runs ADD COLUMN node_timeouts jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE runs DROP COLUMN node_timeouts`);
  }
}
