import type { DataSource } from 'typeorm';
import type { EmbeddingModel } from './embedding';
import { normalize } from './embedding';
import { MemoryRepository } from './memory.repository';

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
  private readonly memories: MemoryRepository;

  constructor(ds: DataSource) {
    this.memories = new MemoryRepository(ds);
  }

  /** The user's succeeded runs not yet embedded with `model`, oldest first, at most `limit`. */
  async unembeddedTurns(owner: MemoryOwner, model: string, limit: number): Promise<MemoryTurn[]> {
    const rows = await this.memories.unembeddedTurns(owner.tenantId, owner.userId, model, limit);
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
    return this.memories.insert(
      owner.tenantId,
      owner.userId,
      model.name,
      turns.map((t, i) => ({ ...t, embedding: `{${vectors[i].join(',')}}` })),
    );
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
    // Always the exact cosine over this user's rows (found through the (tenant_id, user_id, model)
    // index): an HNSW scan over every user's memories would be filtered down to one user's few
    // and could miss them, and the exact scan of one user's turns is cheap.
    const rows = await this.memories.search(
      { tenantId: owner.tenantId, userId: owner.userId, model: model.name },
      q,
      {
        threshold: opts.threshold,
        topK: opts.topK,
        excludeRunId: opts.excludeRunId ?? null,
      },
    );
    return rows.map((r) => ({
      run_id: r.run_id,
      thread_id: r.thread_id,
      turn: r.turn,
      text: r.text,
      score: Math.round(Number(r.score) * 1e4) / 1e4,
    }));
  }
}
