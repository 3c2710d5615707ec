/** The constant of reciprocal rank fusion (Cormack et al.): damps the weight of the very first ranks. */
export const RRF_K = 60;

/**
 * Reciprocal rank fusion: each ranking (best first) gives an item 1 / (k + rank), rank from 1; an
 * item's fused score is the sum over the rankings it appears in. Returns keys best first (ties:
 * the order in which the keys were first seen).
 */
export function reciprocalRankFusion(
  rankings: readonly (readonly string[])[],
  k = RRF_K,
): { key: string; score: number }[] {
  const scores = new Map<string, number>();
  for (const ranking of rankings) {
    const seen = new Set<string>();
    ranking.forEach((key, i) => {
      // A key listed twice in one ranking counts at its best rank only.
      if (seen.has(key)) {
        return;
      }
      seen.add(key);
      scores.set(key, (scores.get(key) ?? 0) + 1 / (k + i + 1));
    });
  }
  return [...scores.entries()].map(([key, score]) => ({ key, score })).sort((a, b) => b.score - a.score);
}
