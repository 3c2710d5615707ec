import { sql } from 'kysely';
import type { DataSource } from 'typeorm';
import { type Db, kyselyOf } from '@switchyard/persistence';
import { detoastedArray, dotProductSql } from './vector-sql';

/** A succeeded run of a user, as a turn to remember. */
export interface TurnRow {
  run_id: string;
  thread_id: string;
  turn: number;
  prompt: string | null;
  answer: string | null;
}

/** A turn to store (`embedding`: a float4[] literal). */
export interface NewMemory {
  thread_id: string;
  run_id: string;
  turn: number;
  text: string;
  embedding: string;
}

/** A remembered turn and its cosine similarity to the query (float8: a number). */
export interface MemoryRow {
  run_id: string;
  thread_id: string;
  turn: number;
  text: string;
  score: number | string;
}

/**
 * The `memories` table (and the succeeded `runs` it remembers), always within one tenant, one
 * user and one embedding model.
 */
export class MemoryRepository {
  private readonly db: Db;

  constructor(ds: DataSource) {
    this.db = kyselyOf(ds);
  }

  /** The user's succeeded runs not yet remembered with `model`, oldest first, at most `limit`. */
  unembeddedTurns(tenantId: string, userId: string, model: string, limit: number): Promise<TurnRow[]> {
    return this.db
      .selectFrom('runs as r')
      .select([
        sql<string>`r.id::text`.as('run_id'),
        sql<string>`r.thread_id::text`.as('thread_id'),
        sql<number>`coalesce(r.turn, 0)`.as('turn'),
        sql<string | null>`r.input->>'prompt'`.as('prompt'),
        sql<string | null>`r.output->>'answer'`.as('answer'),
      ])
      .where('r.tenant_id', '=', tenantId)
      .where(sql<string>`r.metadata->>'user_id'`, '=', userId)
      .where('r.status', '=', 'succeeded')
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('memories as m')
              .select(sql`1`.as('one'))
              .whereRef('m.run_id', '=', 'r.id')
              .where('m.model', '=', model),
          ),
        ),
      )
      .orderBy(sql`r.finished_at NULLS LAST`)
      .orderBy('r.id')
      .limit(limit)
      .execute();
  }

  /** Stores the turns in one statement; one already stored (run and model) is skipped. Answers how many were added. */
  async insert(
    tenantId: string,
    userId: string,
    model: string,
    turns: readonly NewMemory[],
  ): Promise<number> {
    const { rows } = await sql<{ id: string }>`
      INSERT INTO memories (tenant_id, user_id, thread_id, run_id, turn, text, model, embedding)
      SELECT ${tenantId}, ${userId}, t.thread_id, t.run_id, t.turn, t.text, ${model}, t.embedding::float4[]
      FROM unnest(${turns.map((t) => t.thread_id)}::uuid[], ${turns.map((t) => t.run_id)}::uuid[],
                  ${turns.map((t) => t.turn)}::int[], ${turns.map((t) => t.text)}::text[],
                  ${turns.map((t) => t.embedding)}::text[])
        AS t(thread_id, run_id, turn, text, embedding)
      ON CONFLICT (run_id, model) DO NOTHING
      RETURNING id`.execute(this.db);
    return rows.length;
  }

  /**
   * The user's memories by the exact dot product with `q` (a unit vector), at least `threshold`,
   * best (then newest) first, at most `topK`; `excludeRunId`'s own turn left out.
   */
  async search(
    owner: { tenantId: string; userId: string; model: string },
    q: readonly number[],
    opts: { threshold: number; topK: number; excludeRunId: string | null },
  ): Promise<MemoryRow[]> {
    const { rows } = await sql<MemoryRow>`
      SELECT * FROM (
        SELECT m.run_id::text AS run_id, m.thread_id::text AS thread_id, m.turn, m.text,
               ${sql.raw(dotProductSql('x.e', q))} AS score, m.created_at
        FROM memories m, ${sql.raw(detoastedArray('m.embedding', 'x', 'float4'))}
        WHERE m.tenant_id = ${owner.tenantId} AND m.user_id = ${owner.userId} AND m.model = ${owner.model}
          AND (${opts.excludeRunId}::uuid IS NULL OR m.run_id <> ${opts.excludeRunId}::uuid)
      ) s WHERE s.score >= ${opts.threshold} ORDER BY s.score DESC, s.created_at DESC LIMIT ${opts.topK}`.execute(
      this.db,
    );
    return rows;
  }
}
