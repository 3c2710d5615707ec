import type { DataSource } from 'typeorm';
import type { EmbeddingModel } from './embedding';
import { normalize } from './embedding';
import { detoastedArray, dotProductSql } from './vector-sql';

/** Whose memory: a user (`runs.metadata.user_id`) within a tenant, for one embedding model. */
export interface MemoryOwner {
  tenantId: string;
  userId: string;
}

/** A finished turn of one of the user's threads. */
export interface MemoryTurn {
  run_id: string;
  thread_id: string;
  turn: number;
  text: string;
}

export interface MemoryHit extends MemoryTurn {
  score: number;
}

export interface MemorySearch {
  topK: number;
  /** Minimum cosine similarity. */
  threshold: number;
  /** The run asking: its own turn is never a memory of itself. */
  excludeRunId?: string;
}

// A memory row's text is what the planner may read back: long answers are cut.
export const MEMORY_TEXT_MAX = 4000;

/** The text a finished turn is remembered (and embedded) as. */
export function memoryText(prompt: string, answer: string | null | undefined): string {
  const parts = [`User: ${prompt.trim()}`];
  if (answer?.trim()) {
    parts.push(`Assistant: ${answer.trim()}`);
  }
  const text = parts.join('\n');
  return text.length > MEMORY_TEXT_MAX ? `${text.slice(0, MEMORY_TEXT_MAX - 1)}…` : text;
}

/**
 * The `memories` table: each succeeded run of a user embedded once per model (unique run_id +
 * model, so concurrent catch-ups are idempotent), searched by cosine similarity strictly within
 * one tenant and one user.
 */
export class MemoryStore {
  constructor(private readonly ds: DataSource) {}

  /** The user's succeeded runs not yet embedded with `model`, oldest first, at most `limit`. */
  async unembeddedTurns(owner: MemoryOwner, model: string, limit: number): Promise<MemoryTurn[]> {
    const rows = (await this.ds.query(
      `SELECT r.id::text AS run_id, r.thread_id::text AS thread_id, coalesce(r.turn, 0) AS turn,
              r.input->>'prompt' AS prompt, r.output->>'answer' AS answer
       FROM runs r
       WHERE r.tenant_id = $1 AND r.metadata->>'user_id' = $2 AND r.status = 'succeeded'
         AND NOT EXISTS (SELECT 1 FROM memories m WHERE m.run_id = r.id AND m.model = $3)
       ORDER BY r.finished_at NULLS LAST, r.id
       LIMIT $4`,
      [owner.tenantId, owner.userId, model, limit],
    )) as { run_id: string; thread_id: string; turn: number; prompt: string | null; answer: string | null }[];
    return rows
      .filter((r) => typeof r.prompt === 'string' && r.prompt.trim() !== '')
      .map((r) => ({
        run_id: r.run_id,
        thread_id: r.thread_id,
        turn: r.turn,
        text: memoryText(r.prompt as string, r.answer),
      }));
  }

  /** Embeds and stores turns; a turn already stored (another replica was first) is skipped. */
  async remember(owner: MemoryOwner, model: EmbeddingModel, turns: readonly MemoryTurn[]): Promise<number> {
    if (!turns.length) {
      return 0;
    }
    const vectors = (await model.embed(turns.map((t) => t.text))).map(normalize);
    const inserted = (await this.ds.query(
      `INSERT INTO memories (tenant_id, user_id, thread_id, run_id, turn, text, model, embedding)
       SELECT $1, $2, t.thread_id, t.run_id, t.turn, t.text, $3, t.embedding::float4[]
       FROM unnest($4::uuid[], $5::uuid[], $6::int[], $7::text[], $8::text[])
         AS t(thread_id, run_id, turn, text, embedding)
       ON CONFLICT (run_id, model) DO NOTHING
       RETURNING id`,
      [
        owner.tenantId,
        owner.userId,
        model.name,
        turns.map((t) => t.thread_id),
        turns.map((t) => t.run_id),
        turns.map((t) => t.turn),
        turns.map((t) => t.text),
        vectors.map((v) => `{${v.join(',')}}`),
      ],
    )) as unknown[];
    return inserted.length;
  }

  /** Embeds every turn of the user not yet remembered, `batch` at most. Returns how many were added. */
  async catchUp(owner: MemoryOwner, model: EmbeddingModel, batch: number): Promise<number> {
    return this.remember(owner, model, await this.unembeddedTurns(owner, model.name, batch));
  }

  /** The user's memories most similar to `query` (cosine ≥ threshold), best first. */
  async search(
    owner: MemoryOwner,
    model: EmbeddingModel,
    query: string,
    opts: MemorySearch,
  ): Promise<MemoryHit[]> {
    const [raw] = await model.embed([query]);
    const q = normalize(raw);
    const params = [
      owner.tenantId,
      owner.userId,
      model.name,
      opts.excludeRunId ?? null,
      opts.threshold,
      opts.topK,
    ];
    // Always the exact cosine over this user's rows (found through the (tenant_id, user_id, model)
    // index): an HNSW scan over every user's memories would be filtered down to one user's few
    // and could miss them, and the exact scan of one user's turns is cheap.
    const filter = `m.tenant_id = $1 AND m.user_id = $2 AND m.model = $3
                    AND ($4::uuid IS NULL OR m.run_id <> $4::uuid)`;
    const rows = (await this.ds.query(
      `SELECT * FROM (
         SELECT m.run_id::text AS run_id, m.thread_id::text AS thread_id, m.turn, m.text,
                ${dotProductSql('x.e', q)} AS score, m.created_at
         FROM memories m, ${detoastedArray('m.embedding', 'x', 'float4')}
         WHERE ${filter}
       ) s WHERE s.score >= $5 ORDER BY s.score DESC, s.created_at DESC LIMIT $6`,
      params,
    )) as { run_id: string; thread_id: string; turn: number; text: string; score: number | string }[];
    return rows.map((r) => ({
      run_id: r.run_id,
      thread_id: r.thread_id,
      turn: r.turn,
      text: r.text,
      score: Math.round(Number(r.score) * 1e4) / 1e4,
    }));
  }
}
