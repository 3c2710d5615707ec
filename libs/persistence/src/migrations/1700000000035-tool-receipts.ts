import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Receipts of non-idempotent tool calls (http_request, MCP tools without a read-only or
 * idempotent hint): a row is written before the call acts (`started`) and holds the call's
 * output once it is done, under the task id, so a redelivered task never acts twice.
 */
export class ToolReceipts1700000000035 implements MigrationInterface {
  name = 'ToolReceipts1700000000035';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE tool_receipts (
        task_id uuid PRIMARY KEY,
        run_id uuid NOT NULL,
        tool text NOT NULL,
        status text NOT NULL CHECK (status IN ('started', 'done')),
        output jsonb,
        started_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz
      );
      CREATE INDEX tool_receipts_run_idx ON tool_receipts (run_id);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE tool_receipts`);
  }
}
