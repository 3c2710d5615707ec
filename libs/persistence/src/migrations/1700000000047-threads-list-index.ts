import type { MigrationInterface, QueryRunner } from 'typeorm';

/** `GET /v1/threads` reads a tenant's threads newest first, a keyset page at a time. */
export class ThreadsListIndex1700000000047 implements MigrationInterface {
  name = 'ThreadsListIndex1700000000047';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX threads_tenant_created_idx ON threads (tenant_id, created_at DESC, id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX threads_tenant_created_idx`);
  }
}
