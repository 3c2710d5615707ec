import type { DataSource } from 'typeorm';
import { KnowledgeRepository } from './knowledge.repository';

/**
 * Where vector search runs. `pgvector` needs the `vector` extension installed AND the generated
 * `embedding_vec vector(256)` columns the memory migration (1700000000024) adds when the extension
 * exists at migration time; anything else runs the exact cosine over the stored float arrays
 * (same results, slower).
 */
export type VectorBackend = 'pgvector' | 'exact';

export interface VectorBackendInfo {
  backend: VectorBackend;
  /** The extension can be installed on this server (pg_available_extensions). */
  pgvectorAvailable: boolean;
  pgvectorInstalled: boolean;
  /**
   * pgvector ≥ 0.8 can go on scanning the HNSW index until a filtered query (one collection of a
   * shared table) has its `LIMIT` rows (`hnsw.iterative_scan`); older versions may return fewer.
   */
  iterativeScan: boolean;
  description: string;
}

/** Dimensions of the pgvector columns (those of hash-embedding-v1); other models search exactly. */
export const PGVECTOR_DIMENSIONS = 256;

/** Detects the backend once per call; callers cache it (start-up). */
export async function detectVectorBackend(ds: DataSource): Promise<VectorBackendInfo> {
  const row = await new KnowledgeRepository(ds).vectorExtension();
  const iterativeScan = versionAtLeast(row.version, [0, 8, 0]);
  const base = { pgvectorAvailable: row.available, pgvectorInstalled: row.installed, iterativeScan };
  if (row.installed && row.chunk_column && row.memory_column) {
    return {
      ...base,
      backend: 'pgvector',
      description:
        `pgvector ${row.version} (<=> cosine distance on vector(${PGVECTOR_DIMENSIONS}) columns with HNSW indexes` +
        `${iterativeScan ? ', iterative scans for filtered queries' : '; no iterative scans before 0.8: a small collection in a large table may get fewer than top_k'})`,
    };
  }
  const why = !row.available
    ? 'pgvector is not available on this Postgres server'
    : !row.installed
      ? 'pgvector is available but not installed (the migration could not CREATE EXTENSION vector)'
      : 'pgvector was installed after the migrations ran, so the vector columns are missing';
  return { ...base, backend: 'exact', description: `exact cosine over stored float arrays in SQL (${why})` };
}

/** Whether a dotted version (`0.8.1`) is at least `min`. */
export function versionAtLeast(version: string | null, min: readonly number[]): boolean {
  if (!version) {
    return false;
  }
  const parts = version.split('.').map((p) => parseInt(p, 10) || 0);
  for (let i = 0; i < min.length; i++) {
    const v = parts[i] ?? 0;
    if (v !== min[i]) {
      return v > min[i];
    }
  }
  return true;
}

/** A float vector as pgvector's text input, e.g. `[0.1,0,-0.2]`. */
export function pgvectorLiteral(vector: readonly number[]): string {
  return `[${vector.join(',')}]`;
}
