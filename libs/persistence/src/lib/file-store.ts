import type { DataSource } from 'typeorm';

/** A stored file without its bytes. */
export interface StoredFile {
  id: string;
  name: string;
  mime_type: string;
  size: number;
  /** The run whose component made the file; null for an upload. */
  run_id: string | null;
  created_at: string;
}

export interface NewFile {
  tenantId: string;
  name: string;
  mimeType: string;
  content: Buffer;
  /** A component's output: the run and the task that made it (one file per task). */
  runId?: string;
  taskId?: string;
}

const META = `id, name, mime_type, size, run_id, created_at`;

interface MetaRow {
  id: string;
  name: string;
  mime_type: string;
  size: number;
  run_id: string | null;
  created_at: Date;
}

const meta = (r: MetaRow): StoredFile => ({
  id: r.id,
  name: r.name,
  mime_type: r.mime_type,
  size: r.size,
  run_id: r.run_id,
  created_at: r.created_at.toISOString(),
});

/**
 * The tenant's files (table `files`). Every read is scoped by tenant: another tenant's file is
 * not found. A file written for a task replaces that task's earlier file and keeps its id, so a
 * redelivered component answers with the same reference.
 */
export class FileStore {
  constructor(private readonly ds: DataSource) {}

  async put(f: NewFile): Promise<StoredFile> {
    const rows = (await this.ds.query(
      `INSERT INTO files (tenant_id, run_id, task_id, name, mime_type, size, content)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (task_id) WHERE task_id IS NOT NULL DO UPDATE
         SET name = EXCLUDED.name, mime_type = EXCLUDED.mime_type, size = EXCLUDED.size,
             content = EXCLUDED.content
       RETURNING ${META}`,
      [f.tenantId, f.runId ?? null, f.taskId ?? null, f.name, f.mimeType, f.content.length, f.content],
    )) as MetaRow[];
    return meta(rows[0]);
  }

  async get(tenantId: string, id: string): Promise<StoredFile | undefined> {
    const rows = (await this.ds.query(`SELECT ${META} FROM files WHERE tenant_id = $1 AND id = $2`, [
      tenantId,
      id,
    ])) as MetaRow[];
    return rows[0] && meta(rows[0]);
  }

  async read(tenantId: string, id: string): Promise<{ file: StoredFile; content: Buffer } | undefined> {
    const rows = (await this.ds.query(`SELECT ${META}, content FROM files WHERE tenant_id = $1 AND id = $2`, [
      tenantId,
      id,
    ])) as (MetaRow & { content: Buffer })[];
    return rows[0] && { file: meta(rows[0]), content: rows[0].content };
  }

  /** Newest first; with `runId`, the files that run's components made. */
  async list(tenantId: string, opts: { runId?: string; limit: number }): Promise<StoredFile[]> {
    const rows = (await this.ds.query(
      `SELECT ${META} FROM files WHERE tenant_id = $1 AND ($2::uuid IS NULL OR run_id = $2)
       ORDER BY created_at DESC, id LIMIT $3`,
      [tenantId, opts.runId ?? null, opts.limit],
    )) as MetaRow[];
    return rows.map(meta);
  }

  async remove(tenantId: string, id: string): Promise<boolean> {
    // A CTE, so the driver answers with the rows (a bare DELETE answers [rows, count]).
    const rows = (await this.ds.query(
      `WITH gone AS (DELETE FROM files WHERE tenant_id = $1 AND id = $2 RETURNING id) SELECT id FROM gone`,
      [tenantId, id],
    )) as unknown[];
    return rows.length > 0;
  }
}
