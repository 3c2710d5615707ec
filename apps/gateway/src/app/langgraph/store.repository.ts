import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { detoastedArray, dotProductSql } from '@switchyard/knowledge';
import { ApiException } from '../http/api.exception';

export interface StoreItemRow {
  namespace: string[];
  key: string;
  value: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
  score?: number;
}

export interface StoreWrite {
  namespace: string[];
  key: string;
  value: Record<string, unknown>;
  /** The unit embedding of the indexed text, with its model; null: not indexed. */
  embedding: { vector: number[]; model: string } | null;
  ttlMinutes: number | null;
}

export interface StoreQuery {
  prefix: string[];
  filter: Record<string, unknown>;
  limit: number;
  offset: number;
  /** A unit query vector of `model`: ranks the items indexed with it by cosine. */
  semantic?: { vector: number[]; model: string };
  refreshTtl: boolean;
}

const ITEM_COLUMNS = 'namespace, key, value, created_at, updated_at';
const LIVE = '(expires_at IS NULL OR expires_at > now())';
const OPERATORS: Record<string, string> = {
  $eq: '=',
  $ne: 'IS DISTINCT FROM',
  $gt: '>',
  $gte: '>=',
  $lt: '<',
  $lte: '<=',
};

/** The store's queries: a tenant's items by namespace and key; expired items are never read. */
@Injectable()
export class StoreRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  async put(tenantId: string, w: StoreWrite): Promise<void> {
    await this.ds.query(
      `INSERT INTO store_items (tenant_id, namespace, key, value, embedding, embedding_model, ttl_minutes, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, now() + $7 * interval '1 minute')
       ON CONFLICT (tenant_id, namespace, key) DO UPDATE SET
         value = EXCLUDED.value, embedding = EXCLUDED.embedding, embedding_model = EXCLUDED.embedding_model,
         ttl_minutes = EXCLUDED.ttl_minutes, expires_at = EXCLUDED.expires_at, updated_at = now(),
         created_at = CASE WHEN ${LIVE.replaceAll('expires_at', 'store_items.expires_at')}
                           THEN store_items.created_at ELSE now() END`,
      [
        tenantId,
        w.namespace,
        w.key,
        JSON.stringify(w.value),
        w.embedding?.vector ?? null,
        w.embedding?.model ?? null,
        w.ttlMinutes,
      ],
    );
  }

  /** The item, or undefined; with `refreshTtl` its TTL starts again. */
  async get(
    tenantId: string,
    namespace: string[],
    key: string,
    refreshTtl: boolean,
  ): Promise<StoreItemRow | undefined> {
    const [row] = (await this.ds.query(
      refreshTtl
        ? `UPDATE store_items SET expires_at = now() + ttl_minutes * interval '1 minute'
           WHERE tenant_id = $1 AND namespace = $2 AND key = $3 AND ${LIVE} RETURNING ${ITEM_COLUMNS}`
        : `SELECT ${ITEM_COLUMNS} FROM store_items WHERE tenant_id = $1 AND namespace = $2 AND key = $3 AND ${LIVE}`,
      [tenantId, namespace, key],
    )) as StoreItemRow[] | [StoreItemRow[], number];
    return Array.isArray(row) ? row[0] : row;
  }

  async delete(tenantId: string, namespace: string[], key: string): Promise<void> {
    await this.ds.query(`DELETE FROM store_items WHERE tenant_id = $1 AND namespace = $2 AND key = $3`, [
      tenantId,
      namespace,
      key,
    ]);
  }

  /** Items under the prefix matching the filter: by similarity with a query, else newest first. */
  async search(tenantId: string, q: StoreQuery): Promise<StoreItemRow[]> {
    const params: unknown[] = [tenantId, q.prefix];
    const where = [
      'i.tenant_id = $1',
      'i.namespace[1:cardinality($2::text[])] = $2::text[]',
      LIVE.replaceAll('expires_at', 'i.expires_at'),
      ...filterSql(q.filter, params),
    ];
    let score = '';
    let from = 'store_items i';
    let order = 'i.updated_at DESC, i.namespace, i.key';
    if (q.semantic) {
      params.push(q.semantic.model);
      where.push(`i.embedding_model = $${params.length}`);
      from += `, ${detoastedArray('i.embedding', 'v', 'float4')}`;
      score = `, ${dotProductSql('v.e', q.semantic.vector)} AS score`;
      order = 'score DESC, i.namespace, i.key';
    }
    params.push(q.limit, q.offset);
    const rows = (await this.ds.query(
      `SELECT i.namespace, i.key, i.value, i.created_at, i.updated_at${score}
       FROM ${from} WHERE ${where.join(' AND ')}
       ORDER BY ${order} LIMIT $${params.length - 1} OFFSET $${params.length}`,
      params,
    )) as StoreItemRow[];
    if (q.refreshTtl && rows.length) {
      await this.ds.query(
        `UPDATE store_items i SET expires_at = now() + ttl_minutes * interval '1 minute'
         FROM unnest($2::text[], $3::text[]) AS f(ns, key)
         WHERE i.tenant_id = $1 AND i.ttl_minutes IS NOT NULL AND array_to_string(i.namespace, '.') = f.ns AND i.key = f.key`,
        [tenantId, rows.map((r) => r.namespace.join('.')), rows.map((r) => r.key)],
      );
    }
    return rows.map((r) => (r.score === undefined ? r : { ...r, score: Number(r.score) }));
  }

  /** The distinct namespaces (cut to `maxDepth` labels) under the prefix and ending with the suffix. */
  async namespaces(
    tenantId: string,
    q: { prefix: string[]; suffix: string[]; maxDepth: number | null; limit: number; offset: number },
  ): Promise<string[][]> {
    const rows = (await this.ds.query(
      `SELECT DISTINCT CASE WHEN $4::int IS NULL THEN namespace ELSE namespace[1:$4::int] END AS ns
       FROM store_items
       WHERE tenant_id = $1 AND ${LIVE}
         AND namespace[1:cardinality($2::text[])] = $2::text[]
         AND (cardinality($3::text[]) = 0
              OR namespace[cardinality(namespace) - cardinality($3::text[]) + 1:cardinality(namespace)] = $3::text[])
       ORDER BY ns LIMIT $5 OFFSET $6`,
      [tenantId, q.prefix, q.suffix, q.maxDepth, q.limit, q.offset],
    )) as { ns: string[] }[];
    return rows.map((r) => r.ns);
  }
}

/** The filter as SQL conditions on `i.value` (parameters appended to `params`). */
function filterSql(filter: Record<string, unknown>, params: unknown[]): string[] {
  const out: string[] = [];
  for (const [field, cond] of Object.entries(filter)) {
    const isOps =
      cond !== null &&
      typeof cond === 'object' &&
      !Array.isArray(cond) &&
      Object.keys(cond).some((k) => k.startsWith('$'));
    const pairs: [string, unknown][] = isOps
      ? Object.entries(cond as Record<string, unknown>)
      : [['$eq', cond]];
    for (const [op, value] of pairs) {
      const sqlOp = OPERATORS[op];
      if (!sqlOp) {
        throw ApiException.invalidField(
          `filter.${field}`,
          `unknown operator "${op}" (${Object.keys(OPERATORS).join(', ')})`,
        );
      }
      params.push(field, JSON.stringify(value));
      out.push(`(i.value -> $${params.length - 1}) ${sqlOp} $${params.length}::jsonb`);
    }
  }
  return out;
}
