import type { Canvas, NormalizedComponent } from './dsl.schema';
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

/** RAGFlow `iteration_alias_patt`, as `string_format` replaces it: one brace on each side. */
const ALIAS = /\{(item|index|result)\}/g;

/**
 * RAGFlow's Iteration aliases: in a component whose parent is an Iteration, bare `{item}`,
 * `{index}` and `{result}` in its text params stand for its sibling IterationItem's outputs
 * (`{IterationItem:X@item}`), so every reader of the params resolves them like any reference.
 */
export function withIterationAliases(canvas: Canvas, component: NormalizedComponent): NormalizedComponent {
  const parent = canvas.components[component.parentId ?? ''];
  if (parent?.name !== 'Iteration') {
    return component;
  }
  const item = Object.values(canvas.components).find(
    (c) => c.parentId === parent.id && c.name === 'IterationItem',
  );
  if (!item) {
    return component;
  }
  const rewrite = (v: unknown): unknown => {
    if (typeof v === 'string') {
      return v.replace(ALIAS, (_, alias: string) => `{${item.id}@${alias}}`);
    }
    if (Array.isArray(v)) {
      return v.map(rewrite);
    }
    if (v && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, rewrite(x)]));
    }
    return v;
  };
  return { ...component, params: rewrite(component.params) as Record<string, unknown> };
}
