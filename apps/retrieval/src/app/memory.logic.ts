import { type MemoryItem, type RuntimeState, UserIdSchema } from '@switchyard/contracts';
import type { MemoryHit } from '@switchyard/knowledge';

// The memory node's pure parts: whose memory a run reads, the thread-local fallback, and how the
// items read in the action summary (which the planner's "Notes so far" shows).

export const MAX_ITEMS = 5;
/** Minimum Jaccard overlap of the thread-local (lexical) fallback. */
export const LEXICAL_MIN_SCORE = 0.2;
/** Minimum cosine similarity of a user memory (hash-embedding-v1: shared words and word pairs). */
export const VECTOR_MIN_SCORE = 0.25;
/** Finished turns embedded per intake at most; the rest follow at the next intakes. */
export const CATCH_UP_BATCH = 100;
const SNIPPET_MAX = 300;

/**
 * The user a run belongs to: `metadata.user_id` of POST /v1/runs, as the gateway validated it (the
 * same schema; never trimmed, since memory rows and profiles are found by the exact id).
 * `reason` says why there is none.
 */
export function userIdOf(metadata: unknown): { userId: string } | { userId: undefined; reason: string } {
  const raw =
    metadata && typeof metadata === 'object' ? (metadata as Record<string, unknown>)['user_id'] : undefined;
  if (raw === undefined || raw === null) {
    return { userId: undefined, reason: 'the run has no metadata.user_id' };
  }
  const parsed = UserIdSchema.safeParse(raw);
  return parsed.success
    ? { userId: parsed.data }
    : { userId: undefined, reason: 'metadata.user_id is not a non-empty string of at most 200 characters' };
}

export function memoryItems(hits: readonly MemoryHit[]): MemoryItem[] {
  return hits.map((h) => ({
    thread_id: h.thread_id,
    run_id: h.run_id,
    turn: h.turn,
    content: h.text,
    score: h.score,
  }));
}

/** One line per item, whitespace collapsed and cut, so the planner sees what was recalled. */
export function describeItems(items: readonly MemoryItem[]): string {
  return items
    .map((i) => {
      const text = i.content.replace(/\s+/g, ' ').trim();
      const snippet = text.length > SNIPPET_MAX ? `${text.slice(0, SNIPPET_MAX - 1)}…` : text;
      return `[recalled] ${snippet} (score ${i.score})`;
    })
    .join('\n');
}

const words = (s: string): Set<string> => new Set(s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);

/** Thread-local fallback without a user: earlier turns of this thread by word overlap (Jaccard). */
export function relatedTurns(state: Readonly<RuntimeState>): MemoryItem[] {
  const query = words(state.prompts[state.turn] ?? '');
  if (query.size === 0) {
    return [];
  }
  const items: MemoryItem[] = [];
  for (let turn = 0; turn < state.turn; turn++) {
    const content = `${state.prompts[turn] ?? ''}\n${answerOf(state, turn)}`.trim();
    const w = words(content);
    const shared = [...query].filter((x) => w.has(x)).length;
    const score = shared / (query.size + w.size - shared || 1);
    if (score >= LEXICAL_MIN_SCORE) {
      items.push({ thread_id: state.thread_id, turn, content, score: Number(score.toFixed(4)) });
    }
  }
  return items.sort((a, b) => b.score - a.score).slice(0, MAX_ITEMS);
}

/** The answer `output` gave in a turn (its latest), '' without one. */
export function answerOf(state: Readonly<RuntimeState>, turn: number): string {
  const out = [...(state.action_history[turn] ?? [])].reverse().find((a) => a.node === 'output');
  const answer = (out?.result as { answer?: unknown } | null)?.answer;
  return typeof answer === 'string' ? answer : '';
}
