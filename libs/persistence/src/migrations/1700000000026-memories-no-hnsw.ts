import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * User memory is always searched exactly over one user's rows (through the (tenant_id, user_id,
 * model) index): an HNSW scan over every user's memories, filtered down to one user, could miss
 * that user's few turns. The HNSW index on `memories` only cost writes, so it goes.
 */
export class MemoriesNoHnsw1700000000026 implements MigrationInterface {
  name = 'MemoriesNoHnsw1700000000026';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS memories_embedding_hnsw`);
  }

  async down(q: QueryRunner): Promise<void> {
    const [column] = (await q.query(
      `SELECT 1 FROM information_schema.columns WHERE table_name = 'memories' AND column_name = 'embedding_vec'`,
    )) as unknown[];
    if (column) {
      await q.query(
        `CREATE INDEX memories_embedding_hnsw ON memories USING hnsw (embedding_vec vector_cosine_ops)`,
      );
    }
  }
}
