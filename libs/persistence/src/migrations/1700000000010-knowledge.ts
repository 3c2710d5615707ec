import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Knowledge collections (seed 000's vector-collection blocks): index sets, documents and chunks.
 * Embeddings are L2-normalised float8[] searched by exact cosine (pgvector is not assumed); `tsv`
 * serves full-text search with the 'simple' configuration.
 */
export class Knowledge1700000000010 implements MigrationInterface {
  name = 'Knowledge1700000000010';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE collections (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX collections_tenant_idx ON collections (tenant_id, created_at);
      CREATE TABLE index_sets (
        collection_id uuid NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
        index_name text NOT NULL,
        position int NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done', 'failed')),
        error text,
        model text NOT NULL,
        chunk_size int NOT NULL,
        chunk_overlap int NOT NULL,
        collection_configs jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (collection_id, index_name)
      );
      CREATE UNIQUE INDEX index_sets_collection_name_uq ON index_sets ((collection_configs->>'collection_name'));
      CREATE TABLE documents (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        collection_id uuid NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
        text text NOT NULL,
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX documents_collection_idx ON documents (collection_id);
      CREATE TABLE chunks (
        id bigserial PRIMARY KEY,
        collection_id uuid NOT NULL,
        index_name text NOT NULL,
        document_id uuid NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        position int NOT NULL,
        text text NOT NULL,
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        embedding float8[] NOT NULL,
        tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', text)) STORED,
        FOREIGN KEY (collection_id, index_name) REFERENCES index_sets(collection_id, index_name) ON DELETE CASCADE
      );
      CREATE INDEX chunks_set_idx ON chunks (collection_id, index_name);
      CREATE INDEX chunks_document_idx ON chunks (document_id);
      CREATE INDEX chunks_tsv_idx ON chunks USING GIN (tsv);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE chunks; DROP TABLE documents; DROP TABLE index_sets; DROP TABLE collections;`);
  }
}
