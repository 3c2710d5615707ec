import { componentsWith } from './components';
import type { Canvas, NormalizedComponent } from './dsl.schema';
import { structuredOutputSchema } from './structured-output';
import { referencedComponents } from './variable-ref';

/** How a component finished, as far as routing is concerned. */
export interface ComponentOutcome {
  /** `_next` of a Switch or Categorize. */
  next?: string[];
  /** An IterationItem/LoopItem that has no turn left. */
  ended?: boolean;
}

/** The `IterationItem`/`LoopItem` that starts a parent's body. */
export function startOf(canvas: Canvas, parentId: string): string | undefined {
  return Object.values(canvas.components).find(
    (c) => c.parentId === parentId && (c.name === 'IterationItem' || c.name === 'LoopItem'),
  )?.id;
}

function ancestorNamed(
  canvas: Canvas,
  c: NormalizedComponent,
  name: string,
): NormalizedComponent | undefined {
  const seen = new Set<string>();
  for (let p = c.parentId; p && !seen.has(p); p = canvas.components[p]?.parentId) {
    seen.add(p);
    if (canvas.components[p]?.name === name) {
      return canvas.components[p];
    }
  }
  return undefined;
}

/**
 * What runs after component `id` (RAGFlow `Canvas._run_batch` routing): a Switch/Categorize's
 * `_next`; an Iteration/Loop's body start; an ended IterationItem/LoopItem → the parent's
 * downstream; ExitLoop → its Loop's downstream; a body component with no downstream → the body
 * start again (the next turn); anything else → its `downstream`.
 */
export function successorsOf(canvas: Canvas, id: string, outcome: ComponentOutcome = {}): string[] {
  const c = canvas.components[id];
  if (!c) {
    return [];
  }
  switch (c.name) {
    case 'Switch':
    case 'Categorize':
      return outcome.next ?? [];
    case 'Iteration':
    case 'Loop': {
      const start = startOf(canvas, id);
      return start ? [start] : c.downstream;
    }
    case 'IterationItem':
    case 'LoopItem':
      if (outcome.ended) {
        return c.parentId ? (canvas.components[c.parentId]?.downstream ?? []) : [];
      }
      break;
    case 'ExitLoop': {
      const loop = ancestorNamed(canvas, c, 'Loop');
      if (loop) {
        return loop.downstream;
      }
      break;
    }
    default:
      break;
  }
  if (c.downstream.length === 0 && c.parentId) {
    const start = startOf(canvas, c.parentId);
    return start ? [start] : [];
  }
  return c.downstream;
}

/** Components that never skip: they collect input rather than read upstream outputs. */
const NEVER_SKIPPED = componentsWith('neverSkipped');

/**
 * RAGFlow's skip rule: a component whose text references name a component that has not run
 * in this run is dropped (how joins behind untaken branches disappear). Off on a resume.
 */
export function isSkipped(canvas: Canvas, id: string, ran: readonly string[], resumed = false): boolean {
  const c = canvas.components[id];
  if (!c || resumed || NEVER_SKIPPED.has(c.name)) {
    return false;
  }
  const refs = referencesOf(canvas, id, c.params);
  if (refs.length === 0) {
    return false;
  }
  const has = new Set(ran);
  return refs.some((ref) => !has.has(ref));
}

/**
 * The other components `id`'s params reference, read once per canvas object (a run's canvas is
 * read once and kept: InlineNodes, the planner's run cache) rather than at every step.
 */
const references = new WeakMap<Canvas, Map<string, string[]>>();

function referencesOf(canvas: Canvas, id: string, params: unknown): string[] {
  let byId = references.get(canvas);
  if (!byId) {
    byId = new Map();
    references.set(canvas, byId);
  }
  let refs = byId.get(id);
  if (!refs) {
    refs = [...referencedComponents(params, canvas)].filter((ref) => ref !== id);
    byId.set(id, refs);
  }
  return refs;
}

/**
 * The Messages an Agent streams its answer into: RAGFlow hands a downstream Message the Agent's
 * generator (when the Agent has no `exception_goto`), so the Agent finishes only once that
 * Message has shown it. Empty for every other component, and for an Agent that answers in a
 * structured form (it never streams).
 */
export function streamedInto(canvas: Pick<Canvas, 'components'>, id: string): string[] {
  const c = canvas.components[id];
  if (c?.name !== 'Agent') {
    return [];
  }
  const gotos = c.params['exception_goto'];
  if ((Array.isArray(gotos) && gotos.length > 0) || structuredOutputSchema(c.params)) {
    return [];
  }
  return c.downstream.filter((d) => canvas.components[d]?.name === 'Message');
}
