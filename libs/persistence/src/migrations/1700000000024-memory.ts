import { Logger } from '@nestjs/common';
import type { MigrationInterface, QueryRunner } from 'typeorm';

// Dimensions of the pgvector columns: those of the built-in hash-embedding-v1 model. Vectors of
// other sizes get NULL there and are searched exactly over the float arrays.
const DIMENSIONS = 256;

/**
 * Long-term memory: one row per finished turn (run) of a user (`runs.metadata.user_id`) per
 * embedding model, embedded as an L2-normalised float4[] and searched by cosine within the same
 * tenant and user. When the server offers pgvector, the extension is created (guarded: without
 * the privilege it stays off) and `chunks` and `memories` get a generated `embedding_vec
 * vector(256)` column with an HNSW index; otherwise search is the exact cosine over the arrays.
 */
export class Memory1700000000024 implements MigrationInterface {
  name = 'Memory1700000000024';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE memories (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        user_id text NOT NULL,
        thread_id uuid NOT NULL,
        run_id uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        turn integer NOT NULL,
        text text NOT NULL,
        model text NOT NULL,
        embedding float4[] NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (run_id, model)
      );
      CREATE INDEX memories_tenant_user_idx ON memories (tenant_id, user_id, model);
      CREATE INDEX runs_tenant_user_succeeded_idx ON runs (tenant_id, (metadata->>'user_id'))
        WHERE status = 'succeeded';
    `);
    if (await this.ensurePgvector(q)) {
      const column = (name: string) =>
        `ALTER TABLE ${name} ADD COLUMN embedding_vec vector(${DIMENSIONS}) GENERATED ALWAYS AS
           (CASE WHEN cardinality(embedding) = ${DIMENSIONS} THEN embedding::vector(${DIMENSIONS}) END) STORED`;
      await q.query(column('chunks'));
      await q.query(column('memories'));
      await q.query(
        `CREATE INDEX chunks_embedding_hnsw ON chunks USING hnsw (embedding_vec vector_cosine_ops)`,
      );
      await q.query(
        `CREATE INDEX memories_embedding_hnsw ON memories USING hnsw (embedding_vec vector_cosine_ops)`,
      );
    }
  }

  /** Creates the extension when the server offers it; false when it is not there or not allowed. */
  private async ensurePgvector(q: QueryRunner): Promise<boolean> {
    const logger = new Logger('Memory1700000000024');
    const [offered] = (await q.query(
      `SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`,
    )) as unknown[];
    if (!offered) {
      logger.log('pgvector is not available on this server: vector search stays exact over float arrays');
      return false;
    }
    // A failed statement aborts the migration's transaction; the savepoint keeps it usable.
    await q.query('SAVEPOINT pgvector');
    try {
      await q.query('CREATE EXTENSION IF NOT EXISTS vector');
      await q.query('RELEASE SAVEPOINT pgvector');
      return true;
    } catch (err) {
      await q.query('ROLLBACK TO SAVEPOINT pgvector');
      logger.warn(
        `pgvector is available but CREATE EXTENSION vector failed (${(err as Error).message}): exact search`,
      );
      return false;
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE memories`);
    await q.query(`DROP INDEX runs_tenant_user_succeeded_idx`);
    await q.query(`DROP INDEX IF EXISTS chunks_embedding_hnsw`);
    await q.query(`ALTER TABLE chunks DROP COLUMN IF EXISTS embedding_vec`);
  }
}
