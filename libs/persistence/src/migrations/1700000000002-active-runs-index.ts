import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Counting a tenant's active runs (the gateway's cap) reads only the active ones. */
export class ActiveRunsIndex1700000000002 implements MigrationInterface {
  name = 'ActiveRunsIndex1700000000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX runs_tenant_active_idx ON runs (tenant_id) WHERE status IN ('queued', 'running', 'waiting')`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX runs_tenant_active_idx`);
  }
}
