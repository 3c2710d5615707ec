import { pyStr } from '../py-value';

/** An edge input before expansion: the block, whether it is looped, its (normalized) content. */
export interface EdgeInputValue {
  blockId: string;
  looped: boolean;
  content: unknown;
}

/**
 * PuppyEngine's `get_looped_configs`: every looped input whose content is a list or an object is
 * expanded — list items (as Python `str()`, unless `keepItems`), object entries as `str({k: v})` —
 * and the edge runs once per combination of the **Cartesian product** of the looped inputs, in
 * input order (the first looped input varies slowest). Without looped inputs there is one
 * combination, the contents as they are.
 */
export function loopedCombinations(
  inputs: readonly EdgeInputValue[],
  keepItems = false,
): Record<string, unknown>[] {
  const fixed: Record<string, unknown> = {};
  const looped: [string, unknown[]][] = [];
  for (const input of inputs) {
    const c = input.content;
    if (input.looped && c !== null && typeof c === 'object') {
      const items = Array.isArray(c)
        ? c
        : Object.entries(c as Record<string, unknown>).map(([k, v]) => ({ [k]: v }));
      looped.push([input.blockId, keepItems ? items : items.map((x) => pyStr(x))]);
    } else {
      fixed[input.blockId] = c;
    }
  }
  let combos: Record<string, unknown>[] = [{}];
  for (const [blockId, items] of looped) {
    combos = combos.flatMap((combo) => items.map((item) => ({ ...combo, [blockId]: item })));
  }
  return combos.map((combo) => ({ ...combo, ...fixed }));
}

/** An edge runs as a loop (its result is the list of per-combination results) with 2+ combinations. */
export const isLoop = (combinations: readonly unknown[]): boolean => combinations.length > 1;
