import { COMPONENTS } from './components';
import { KNOWN_COMPONENTS } from './validate-canvas';

// How long one component may run, in four levels (RAGFlow's Go port; the Python reference has
// the per-class values as `@timeout(COMPONENT_EXEC_TIMEOUT or <class default>)` decorators):
// 1. the class's own variable SWITCHYARD_GRAPH_TIMEOUT_<CLASS>_MS (CLASS upper-cased, e.g.
//    TAVILYSEARCH), 2. the class's entry in the table below, 3. the uniform
//    SWITCHYARD_GRAPH_TIMEOUT_MS, 4. 600 s.

const S = 1000;

/** The per-class defaults of RAGFlow's `@timeout` decorators (seconds, here in ms): COMPONENTS' `timeoutMs`. */
export const COMPONENT_TIMEOUT_TABLE_MS: Readonly<Record<string, number>> = Object.fromEntries(
  Object.entries(COMPONENTS).flatMap(([name, f]) => (f.timeoutMs === undefined ? [] : [[name, f.timeoutMs]])),
);

export const DEFAULT_COMPONENT_TIMEOUT_MS = 600 * S;
const PER_CLASS = /^SWITCHYARD_GRAPH_TIMEOUT_([A-Z0-9]+)_MS$/;
const UNIFORM = 'SWITCHYARD_GRAPH_TIMEOUT_MS';

export interface ComponentTimeouts {
  /** Per-class values from the environment, by upper-cased class name. */
  perClass: Record<string, number>;
  uniform?: number;
}

function positiveMs(name: string, raw: string): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < 1) {
    throw new Error(`${name} must be a positive whole number of milliseconds, got ${JSON.stringify(raw)}`);
  }
  return n;
}

/**
 * Reads the timeout variables; a bad value or a class that does not exist stops start-up with a
 * message naming the variable.
 */
export function parseComponentTimeouts(env: Record<string, string | undefined>): ComponentTimeouts {
  const classes = new Map([...KNOWN_COMPONENTS].map((c) => [c.toUpperCase(), c]));
  const perClass: Record<string, number> = {};
  for (const [name, raw] of Object.entries(env)) {
    const m = PER_CLASS.exec(name);
    if (!m || raw === undefined) {
      continue;
    }
    if (!classes.has(m[1])) {
      throw new Error(`${name} names no component class (known: ${[...classes.keys()].sort().join(', ')})`);
    }
    perClass[m[1]] = positiveMs(name, raw);
  }
  const uniform = env[UNIFORM];
  return {
    perClass,
    ...(uniform !== undefined && uniform !== '' ? { uniform: positiveMs(UNIFORM, uniform) } : {}),
  };
}

/** The time budget of one run of a component of class `component`. */
export function componentTimeoutMs(component: string, timeouts: ComponentTimeouts): number {
  return (
    timeouts.perClass[component.toUpperCase()] ??
    COMPONENT_TIMEOUT_TABLE_MS[component] ??
    timeouts.uniform ??
    DEFAULT_COMPONENT_TIMEOUT_MS
  );
}
