import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `files`: a tenant's files — uploaded through `POST /v1/files` (a graph run's file inputs) or
 * made by a run's component (ExcelProcessor, DocGenerator). A component's file is written once per
 * task (a redelivered task overwrites its own row, so the file keeps its id); such files are
 * pruned with the run's tool outputs, uploads stay until deleted.
 */
export class Files1700000000039 implements MigrationInterface {
  name = 'Files1700000000039';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE files (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        run_id uuid REFERENCES runs(id) ON DELETE CASCADE,
        task_id uuid,
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
        mime_type text NOT NULL CHECK (length(mime_type) BETWEEN 1 AND 255),
        size integer NOT NULL CHECK (size >= 0),
        content bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE UNIQUE INDEX files_task_idx ON files (task_id) WHERE task_id IS NOT NULL;
      CREATE INDEX files_tenant_idx ON files (tenant_id, created_at DESC);
      CREATE INDEX files_run_idx ON files (run_id) WHERE run_id IS NOT NULL;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE files`);
  }
}
