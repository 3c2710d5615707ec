import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The embedding model a tenant's user memory uses: a registry model of category `embedding`, or
 * null for the built-in hash-embedding-v1 (offline). Memories are keyed by (run, model), so a
 * change re-embeds each user's turns with the new model as they are recalled; rows of the old
 * model stay until their runs are deleted.
 */
export class TenantMemoryModel1700000000038 implements MigrationInterface {
  name = 'TenantMemoryModel1700000000038';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE tenants ADD COLUMN memory_embedding_model text
      CHECK (memory_embedding_model IS NULL OR length(memory_embedding_model) BETWEEN 1 AND 200)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE tenants DROP COLUMN memory_embedding_model`);
  }
}
