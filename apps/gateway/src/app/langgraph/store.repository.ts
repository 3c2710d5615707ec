import { Inject, Injectable } from '@nestjs/common';
import { type RawBuilder, type Selectable, sql } from 'kysely';
import { DataSource } from 'typeorm';
import { detoastedArray, dotProductSql } from '@switchyard/knowledge';
import { type DB, type Db, kyselyOf } from '@switchyard/persistence';
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

const ITEM_COLUMNS = ['namespace', 'key', 'value', 'created_at', 'updated_at'] as const;
const OPERATORS: Record<string, string> = {
  $eq: '=',
  $ne: 'IS DISTINCT FROM',
  $gt: '>',
  $gte: '>=',
  $lt: '<',
  $lte: '<=',
};

/** The item has not expired (`column`: its `expires_at`). */
const live = (column: string): RawBuilder<boolean> =>
  sql<boolean>`(${sql.ref(column)} IS NULL OR ${sql.ref(column)} > now())`;

/** `now()` plus the minutes of `minutes` (float8, as `ttl_minutes`: a column or a parameter), as the new expiry. */
const expiresIn = (minutes: RawBuilder<unknown>): RawBuilder<Date> =>
  sql<Date>`now() + ${minutes} * interval '1 minute'`;

/** An item's value holds the JSON object `put` wrote. */
function storeItemRow(r: Pick<Selectable<DB['store_items']>, (typeof ITEM_COLUMNS)[number]>): StoreItemRow {
  return { ...r, value: r.value as StoreItemRow['value'] };
}

/** The store's queries: a tenant's items by namespace and key; expired items are never read. */
@Injectable()
export class StoreRepository {
  private readonly db: Db;

  constructor(@Inject(DataSource) ds: DataSource) {
    this.db = kyselyOf(ds);
  }

  async put(tenantId: string, w: StoreWrite): Promise<void> {
    await this.db
      .insertInto('store_items')
      .values({
        tenant_id: tenantId,
        namespace: w.namespace,
        key: w.key,
        value: JSON.stringify(w.value),
        embedding: w.embedding?.vector ?? null,
        embedding_model: w.embedding?.model ?? null,
        ttl_minutes: w.ttlMinutes,
        expires_at: expiresIn(sql`${w.ttlMinutes}::float8`),
      })
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'namespace', 'key']).doUpdateSet((eb) => ({
          value: eb.ref('excluded.value'),
          embedding: eb.ref('excluded.embedding'),
          embedding_model: eb.ref('excluded.embedding_model'),
          ttl_minutes: eb.ref('excluded.ttl_minutes'),
          expires_at: eb.ref('excluded.expires_at'),
          updated_at: sql<Date>`now()`,
          created_at: sql<Date>`CASE WHEN ${live('store_items.expires_at')} THEN store_items.created_at ELSE now() END`,
        })),
      )
      .execute();
  }

  /** The item, or undefined; with `refreshTtl` its TTL starts again. */
  async get(
    tenantId: string,
    namespace: string[],
    key: string,
    refreshTtl: boolean,
  ): Promise<StoreItemRow | undefined> {
    const row = refreshTtl
      ? await this.db
          .updateTable('store_items')
          .set({ expires_at: expiresIn(sql.ref('ttl_minutes')) })
          .where('tenant_id', '=', tenantId)
          .where('namespace', '=', sql.val(namespace))
          .where('key', '=', key)
          .where(live('expires_at'))
          .returning(ITEM_COLUMNS)
          .executeTakeFirst()
      : await this.db
          .selectFrom('store_items')
          .select(ITEM_COLUMNS)
          .where('tenant_id', '=', tenantId)
          .where('namespace', '=', sql.val(namespace))
          .where('key', '=', key)
          .where(live('expires_at'))
          .executeTakeFirst();
    return row && storeItemRow(row);
  }

  async delete(tenantId: string, namespace: string[], key: string): Promise<void> {
    await this.db
      .deleteFrom('store_items')
      .where('tenant_id', '=', tenantId)
      .where('namespace', '=', sql.val(namespace))
      .where('key', '=', key)
      .execute();
  }

  /**
   * Items under the prefix matching the filter: by similarity with a query, else newest first.
   * Raw SQL: array slices, JSON operators chosen by the filter, and the detoasted dot product.
   */
  async search(tenantId: string, q: StoreQuery): Promise<StoreItemRow[]> {
    const where = [
      sql`i.tenant_id = ${tenantId}`,
      sql`i.namespace[1:cardinality(${q.prefix}::text[])] = ${q.prefix}::text[]`,
      live('i.expires_at'),
      ...filterSql(q.filter),
    ];
    let score = sql``;
    let from = sql`store_items i`;
    let order = sql`i.updated_at DESC, i.namespace, i.key`;
    if (q.semantic) {
      where.push(sql`i.embedding_model = ${q.semantic.model}`);
      from = sql`${from}, ${sql.raw(detoastedArray('i.embedding', 'v', 'float4'))}`;
      score = sql`, ${sql.raw(dotProductSql('v.e', q.semantic.vector))} AS score`;
      order = sql`score DESC, i.namespace, i.key`;
    }
    const { rows } = await sql<Selectable<DB['store_items']> & { score?: number | string }>`
      SELECT i.namespace, i.key, i.value, i.created_at, i.updated_at${score}
      FROM ${from} WHERE ${sql.join(where, sql` AND `)}
      ORDER BY ${order} LIMIT ${q.limit} OFFSET ${q.offset}`.execute(this.db);
    if (q.refreshTtl && rows.length) {
      await sql`UPDATE store_items i SET expires_at = ${expiresIn(sql.ref('ttl_minutes'))}
        FROM unnest(${rows.map((r) => r.namespace.join('.'))}::text[], ${rows.map((r) => r.key)}::text[]) AS f(ns, key)
        WHERE i.tenant_id = ${tenantId} AND i.ttl_minutes IS NOT NULL
          AND array_to_string(i.namespace, '.') = f.ns AND i.key = f.key`.execute(this.db);
    }
    return rows.map(({ score, ...r }) =>
      score === undefined ? storeItemRow(r) : { ...storeItemRow(r), score: Number(score) },
    );
  }

  /** The distinct namespaces (cut to `maxDepth` labels) under the prefix and ending with the suffix. */
  async namespaces(
    tenantId: string,
    q: { prefix: string[]; suffix: string[]; maxDepth: number | null; limit: number; offset: number },
  ): Promise<string[][]> {
    const rows = await this.db
      .selectFrom('store_items')
      .select(
        (q.maxDepth === null ? sql<string[]>`namespace` : sql<string[]>`namespace[1:${q.maxDepth}::int]`).as(
          'ns',
        ),
      )
      .distinct()
      .where('tenant_id', '=', tenantId)
      .where(live('expires_at'))
      .where(sql<boolean>`namespace[1:cardinality(${q.prefix}::text[])] = ${q.prefix}::text[]`)
      .$if(q.suffix.length > 0, (qb) =>
        qb.where(
          sql<boolean>`namespace[cardinality(namespace) - cardinality(${q.suffix}::text[]) + 1:cardinality(namespace)] = ${q.suffix}::text[]`,
        ),
      )
      .orderBy('ns')
      .limit(q.limit)
      .offset(q.offset)
      .execute();
    return rows.map((r) => r.ns);
  }
}

/** The filter as SQL conditions on `i.value`. */
function filterSql(filter: Record<string, unknown>): RawBuilder<unknown>[] {
  const out: RawBuilder<unknown>[] = [];
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
      out.push(sql`(i.value -> ${field}) ${sql.raw(sqlOp)} ${JSON.stringify(value)}::jsonb`);
    }
  }
  return out;
}
