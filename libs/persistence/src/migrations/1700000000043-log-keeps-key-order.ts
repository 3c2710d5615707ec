import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The state log keeps each delta and snapshot as it was written: `json` (the text) instead of
 * `jsonb`, which sorts object keys (shorter first). A node service whose cache is cold reads the
 * state back from here, and key order is data to a graph agent (a table's columns, a Message
 * rendering an object, as RAGFlow's Python dicts keep it); with pure components run inline by the
 * orchestrator, the planner reads their outputs from here rather than computing them itself.
 * Every query on these columns uses `->`/`->>`, which `json` has too. Rows written before keep
 * the order jsonb gave them. Changing a column's type rewrites the table under an exclusive lock:
 * on a large deployment, run the migration (`npm run migrate`) in a maintenance window.
 */
export class LogKeepsKeyOrder1700000000043 implements MigrationInterface {
  name = 'LogKeepsKeyOrder1700000000043';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE state_deltas ALTER COLUMN delta TYPE json USING delta::json`);
    await q.query(`ALTER TABLE state_snapshots ALTER COLUMN state TYPE json USING state::json`);
    await q.query(`ALTER TABLE run_tasks ALTER COLUMN delta TYPE json USING delta::json`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE run_tasks ALTER COLUMN delta TYPE jsonb USING delta::jsonb`);
    await q.query(`ALTER TABLE state_snapshots ALTER COLUMN state TYPE jsonb USING state::jsonb`);
    await q.query(`ALTER TABLE state_deltas ALTER COLUMN delta TYPE jsonb USING delta::jsonb`);
  }
}
