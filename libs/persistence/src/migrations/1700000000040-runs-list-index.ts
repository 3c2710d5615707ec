import type { MigrationInterface, QueryRunner } from 'typeorm';

/** `GET /v1/runs` lists a tenant's runs newest first, a page at a time (keyset on created_at, id). */
export class RunsListIndex1700000000040 implements MigrationInterface {
  name = 'RunsListIndex1700000000040';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX runs_tenant_created_idx ON runs (tenant_id, created_at DESC, id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX runs_tenant_created_idx`);
  }
}
