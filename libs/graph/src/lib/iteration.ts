import type { Canvas } from './dsl.schema';
import { COLLATED_OUTPUTS, type VariableScope, getVariableValue, resolveParam } from './variable-ref';

export { COLLATED_OUTPUTS };

/** The list an Iteration iterates (`items_ref`); throws unless it is a list. */
export function iterationItems(scope: VariableScope, iterationId: string): unknown[] {
  const items = resolveParam(scope, scope.canvas.components[iterationId]?.params['items_ref']);
  if (!Array.isArray(items)) {
    throw new Error(`items_ref of ${iterationId} is not a list`);
  }
  return items;
}

/** What one visit of an IterationItem does: its outputs and whether the iteration has ended. */
export interface IterationStep {
  outputs: Record<string, unknown>;
  ended: boolean;
}

/**
 * RAGFlow's IterationItem, visit `visit` (0-based) of this run: before each visit but the first,
 * the previous pass is collated into the parent's outputs that have a `ref` (`Child@var` values
 * appended to a list); then it emits `item` and `index`, or ends after the last item.
 */
export function iterationItemStep(scope: VariableScope, itemId: string, visit: number): IterationStep {
  const canvas: Canvas = scope.canvas;
  const parentId = canvas.components[itemId]?.parentId ?? '';
  const items = iterationItems(scope, parentId);
  const declared = (canvas.components[parentId]?.params['outputs'] ?? {}) as Record<string, { ref?: string }>;
  const previous = (visit > 0 ? scope.outputs[itemId]?.[COLLATED_OUTPUTS] : undefined) as
    Record<string, unknown[]> | undefined;
  const collated: Record<string, unknown[]> = {};
  for (const [name, output] of Object.entries(declared)) {
    if (!output?.ref) {
      continue;
    }
    collated[name] = [...(previous?.[name] ?? [])];
    if (visit > 0) {
      collated[name].push(getVariableValue(scope, output.ref));
    }
  }
  if (visit >= items.length) {
    return { outputs: { [COLLATED_OUTPUTS]: collated }, ended: true };
  }
  return { outputs: { item: items[visit], index: visit, [COLLATED_OUTPUTS]: collated }, ended: false };
}
