import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { type FileStoreLocation, fileStoreLocation, objectStoreConnections } from '@switchyard/config';
import { FileObjects } from './file-objects';

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

/** A file over the size a reader takes: its bytes were not read. */
export class FileTooLargeError extends Error {
  constructor(
    readonly file: StoredFile,
    readonly maxBytes: number,
  ) {
    super(`file ${file.id} is ${file.size} bytes, over the limit of ${maxBytes} bytes`);
    this.name = 'FileTooLargeError';
  }
}

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
 *
 * The bytes are in the row (`content`), or — with an object store (SWITCHYARD_FILE_STORE) — in an
 * object named by the row (`object_key`), written before the row, so a row never names an object
 * that was not written. An object whose row went (by any cascade) is listed in
 * `file_objects_gone` by a trigger; {@link FileStore.sweepObjects} deletes them.
 */
export class FileStore {
  constructor(
    private readonly ds: DataSource,
    private readonly objects?: FileObjects,
  ) {}

  /** Where new files' bytes go: `postgres`, or the object store's `<provider>:<bucket>/<prefix>`. */
  get storage(): string {
    const to = this.objects?.writeTo;
    return to ? `${to.provider}:${to.bucket}/${to.prefix}` : 'postgres';
  }

  async put(f: NewFile): Promise<StoredFile> {
    // A task's file keeps one object name, so its redelivery overwrites it (as it does the row).
    const objectKey = this.objects?.writeTo
      ? await this.objects.put(`${f.tenantId}/${f.taskId ?? randomUUID()}`, f.content, f.mimeType)
      : null;
    try {
      const rows = (await this.ds.query(
        `INSERT INTO files (tenant_id, run_id, task_id, name, mime_type, size, content, object_key)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (task_id) WHERE task_id IS NOT NULL DO UPDATE
           SET name = EXCLUDED.name, mime_type = EXCLUDED.mime_type, size = EXCLUDED.size,
               content = EXCLUDED.content, object_key = EXCLUDED.object_key
         RETURNING ${META}`,
        [
          f.tenantId,
          f.runId ?? null,
          f.taskId ?? null,
          f.name,
          f.mimeType,
          f.content.length,
          objectKey ? null : f.content,
          objectKey,
        ],
      )) as MetaRow[];
      return meta(rows[0]);
    } catch (err) {
      // No row names the upload's object: it goes (a task's stays, its row may exist).
      if (objectKey && !f.taskId) {
        await this.objects?.delete([objectKey]);
      }
      throw err;
    }
  }

  async get(tenantId: string, id: string): Promise<StoredFile | undefined> {
    const rows = (await this.ds.query(`SELECT ${META} FROM files WHERE tenant_id = $1 AND id = $2`, [
      tenantId,
      id,
    ])) as MetaRow[];
    return rows[0] && meta(rows[0]);
  }

  /** Which of these ids are files of the tenant. */
  async existing(tenantId: string, ids: readonly string[]): Promise<Set<string>> {
    const rows = (await this.ds.query(`SELECT id FROM files WHERE tenant_id = $1 AND id = ANY($2::uuid[])`, [
      tenantId,
      ids,
    ])) as { id: string }[];
    return new Set(rows.map((r) => r.id));
  }

  /**
   * The file with its bytes (undefined: not the tenant's). Past `maxBytes` it throws
   * FileTooLargeError without reading them.
   */
  async read(
    tenantId: string,
    id: string,
    opts: { maxBytes?: number } = {},
  ): Promise<{ file: StoredFile; content: Buffer } | undefined> {
    const rows = (await this.ds.query(
      `SELECT ${META}, CASE WHEN $3::bigint IS NULL OR size <= $3 THEN content END AS content, object_key
       FROM files WHERE tenant_id = $1 AND id = $2`,
      [tenantId, id, opts.maxBytes ?? null],
    )) as (MetaRow & { content: Buffer | null; object_key: string | null })[];
    const row = rows[0];
    if (!row) {
      return undefined;
    }
    if (opts.maxBytes !== undefined && row.size > opts.maxBytes) {
      throw new FileTooLargeError(meta(row), opts.maxBytes);
    }
    if (row.content) {
      return { file: meta(row), content: row.content };
    }
    if (!this.objects) {
      throw new Error(`file ${id} is in object ${row.object_key}, and no object store is configured here`);
    }
    return { file: meta(row), content: await this.objects.get(row.object_key as string) };
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
      `WITH gone AS (DELETE FROM files WHERE tenant_id = $1 AND id = $2 RETURNING id, object_key)
       SELECT id, object_key FROM gone`,
      [tenantId, id],
    )) as { id: string; object_key: string | null }[];
    const objectKey = rows[0]?.object_key;
    if (objectKey) {
      // Its object goes now; should that fail, the sweep takes it later.
      await this.sweepObjects({ only: [objectKey] }).catch(() => undefined);
    }
    return rows.length > 0;
  }

  /**
   * Deletes the objects of files whose rows went (`file_objects_gone`), oldest first, up to
   * `limit`; answers what went and what could not (left for the next sweep).
   */
  async sweepObjects(
    opts: { limit?: number; only?: string[] } = {},
  ): Promise<{ deleted: number; failed: { objectKey: string; error: string }[] }> {
    if (!this.objects) {
      return { deleted: 0, failed: [] };
    }
    const rows = (await this.ds.query(
      `SELECT g.object_key FROM file_objects_gone g
       WHERE ($1::text[] IS NULL OR g.object_key = ANY($1))
         -- A task's file written again under its key since its row went keeps the object.
         AND NOT EXISTS (SELECT 1 FROM files f WHERE f.object_key = g.object_key)
       ORDER BY g.gone_at LIMIT $2`,
      [opts.only ?? null, opts.limit ?? 500],
    )) as { object_key: string }[];
    if (rows.length === 0) {
      return { deleted: 0, failed: [] };
    }
    const { deleted, failed } = await this.objects.delete(rows.map((r) => r.object_key));
    if (deleted.length) {
      await this.ds.query(`DELETE FROM file_objects_gone g WHERE g.object_key = ANY($1)`, [deleted]);
    }
    return { deleted: deleted.length, failed };
  }
}

/**
 * The FileStore this deployment's environment describes: bytes in Postgres, or in the object
 * store SWITCHYARD_FILE_STORE names (files already in any configured store stay readable).
 */
export function fileStoreFromEnv(ds: DataSource, env: NodeJS.ProcessEnv = process.env): FileStore {
  const writeTo: FileStoreLocation | null = fileStoreLocation(env);
  const connections = objectStoreConnections(env);
  return new FileStore(ds, writeTo || connections.length ? new FileObjects(writeTo, connections) : undefined);
}
