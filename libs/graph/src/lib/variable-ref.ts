import type { Canvas } from './dsl.schema';
import { GraphErrorCode, GraphException } from './graph.exception';

// RAGFlow `ComponentBase.variable_ref_patt`: a component output, `sys.*` or `env.*` between one
// brace on each side; extra braces and spaces around it belong to the match.
const REF = '([a-zA-Z0-9_:]+@[A-Za-z0-9_.-]+|sys\\.[A-Za-z0-9_.]+|env\\.[A-Za-z0-9_.]+)';

/** The reference pattern of streamed text (a Message): surrounding braces and spaces are eaten. */
export const variableRefPattern = (): RegExp => new RegExp(`\\{* *\\{${REF}\\} *\\}*`, 'gis');
/** The pattern of StringTransform merges and LLM prompts: the braces only, spaces stay. */
export const bracedRefPattern = (): RegExp => new RegExp(`\\{${REF}\\}`, 'gis');

/** Where an IterationItem keeps its parent's collated outputs (a component writes only its own). */
export const COLLATED_OUTPUTS = '_collated';

/** What references resolve against: the canvas, its globals and the outputs produced so far. */
export interface VariableScope {
  canvas: Canvas;
  /** `sys.*` and `env.*`, keyed by the whole name (`"env.counter"`). */
  globals: Record<string, unknown>;
  /** Component id → the outputs it set. */
  outputs: Record<string, Record<string, unknown>>;
}

/** `exp` without surrounding braces and spaces (Python `strip("{").strip("}").strip(" ")…`). */
export function stripRef(exp: string): string {
  const strip = (s: string, ch: string) => {
    let a = 0;
    let b = s.length;
    while (a < b && s[a] === ch) {
      a++;
    }
    while (b > a && s[b - 1] === ch) {
      b--;
    }
    return s.slice(a, b);
  };
  return strip(strip(strip(strip(strip(exp, '{'), '}'), ' '), '{'), '}');
}

/** A component's output `root`: set → its value; declared but not produced → null; else "". */
export function componentOutput(scope: VariableScope, id: string, root: string): unknown {
  const produced = scope.outputs[id];
  if (produced && Object.hasOwn(produced, root)) {
    return produced[root] ?? null;
  }
  // An Iteration's collated outputs are kept by its IterationItem, which produces them.
  if (scope.canvas.components[id]?.name === 'Iteration') {
    const item = Object.values(scope.canvas.components).find(
      (c) => c.parentId === id && c.name === 'IterationItem',
    );
    const collated = item
      ? (scope.outputs[item.id]?.[COLLATED_OUTPUTS] as Record<string, unknown> | undefined)
      : undefined;
    if (collated && Object.hasOwn(collated, root)) {
      return collated[root];
    }
  }
  const declared = scope.canvas.components[id]?.params['outputs'];
  return declared && typeof declared === 'object' && Object.hasOwn(declared, root) ? null : '';
}

function walk(value: unknown, path: string[]): unknown {
  let cur = value;
  for (const seg of path) {
    if (cur === null || cur === undefined) {
      return null;
    }
    if (typeof cur === 'string') {
      try {
        cur = JSON.parse(cur);
      } catch {
        return null;
      }
    }
    if (Array.isArray(cur)) {
      if (!/^\s*[+-]?\d+\s*$/.test(seg)) {
        return null;
      }
      const i = Number(seg);
      const at = i < 0 ? cur.length + i : i;
      cur = at >= 0 && at < cur.length ? cur[at] : null;
    } else if (cur !== null && typeof cur === 'object') {
      cur = (cur as Record<string, unknown>)[seg] ?? null;
    } else {
      // getattr on a number or bool finds nothing useful.
      return null;
    }
  }
  return cur;
}

/**
 * RAGFlow `get_variable_value`: `sys.*`/`env.*` by their whole name (no path walk), or
 * `cpn@root[.path]` with the path walked through dicts, lists and JSON strings.
 */
export function getVariableValue(scope: VariableScope, exp: string): unknown {
  const ref = stripRef(exp);
  const at = ref.indexOf('@');
  if (at < 0) {
    if (!Object.hasOwn(scope.globals, ref)) {
      throw new GraphException(GraphErrorCode.UnknownVariable, `no global variable "${ref}"`);
    }
    return scope.globals[ref];
  }
  const id = ref.slice(0, at);
  const name = ref.slice(at + 1);
  if (!scope.canvas.components[id]) {
    throw new GraphException(GraphErrorCode.UnknownVariable, `Can't find variable: '${id}@${name}'`);
  }
  const dot = name.indexOf('.');
  const root = dot < 0 ? name : name.slice(0, dot);
  const value = componentOutput(scope, id, root);
  return dot < 0 ? value : walk(value, name.slice(dot + 1).split('.'));
}

/**
 * RAGFlow `is_reff`: the whole param is one reference (braces optional) — a global that exists,
 * or `cpn@var` of a component that exists.
 */
export function isWholeRef(scope: VariableScope, value: unknown): value is string {
  if (typeof value !== 'string') {
    return false;
  }
  const ref = stripRef(value);
  const parts = ref.split('@');
  if (parts.length === 1) {
    return Object.hasOwn(scope.globals, ref);
  }
  return parts.length === 2 && Boolean(scope.canvas.components[parts[0]]);
}

/** A param's value: the referenced value when the param is a whole reference, else as written. */
export function resolveParam(scope: VariableScope, value: unknown): unknown {
  return isWholeRef(scope, value) ? getVariableValue(scope, value) : value;
}

/** A piece of a text template: literal text or a reference. */
export type TemplateSegment = { text: string } | { ref: string };

/** Splits `text` into literal pieces and references (`eatSpaces`: the Message form of the pattern). */
export function templateSegments(text: string, eatSpaces = true): TemplateSegment[] {
  const segments: TemplateSegment[] = [];
  let last = 0;
  for (const m of text.matchAll(eatSpaces ? variableRefPattern() : bracedRefPattern())) {
    if (m.index > last) {
      segments.push({ text: text.slice(last, m.index) });
    }
    segments.push({ ref: m[1] });
    last = m.index + m[0].length;
  }
  if (last < text.length) {
    segments.push({ text: text.slice(last) });
  }
  return segments;
}

/** Renders a template; `stringify` is the consumer's rule for non-string values (§ text templates). */
export function renderTemplate(
  scope: VariableScope,
  text: string,
  stringify: (v: unknown) => string,
  eatSpaces = true,
): string {
  return templateSegments(text, eatSpaces)
    .map((s) => ('text' in s ? s.text : stringify(getVariableValue(scope, s.ref))))
    .join('');
}

/** Component ids referenced (`cpn@var`) anywhere in a value: text refs and whole-param refs. */
export function referencedComponents(value: unknown, canvas: Canvas): Set<string> {
  const ids = new Set<string>();
  const visit = (v: unknown): void => {
    if (typeof v === 'string') {
      for (const m of v.matchAll(variableRefPattern())) {
        const at = m[1].indexOf('@');
        if (at > 0) {
          ids.add(m[1].slice(0, at));
        }
      }
    } else if (Array.isArray(v)) {
      v.forEach(visit);
    } else if (v && typeof v === 'object') {
      Object.values(v).forEach(visit);
    }
  };
  visit(value);
  for (const id of [...ids]) {
    if (!canvas.components[id]) {
      ids.delete(id);
    }
  }
  return ids;
}

/** RAGFlow `set_variable_value`: the new globals and outputs after writing `exp`. */
export function setVariableValue(
  scope: VariableScope,
  exp: string,
  value: unknown,
): Pick<VariableScope, 'globals' | 'outputs'> {
  const ref = stripRef(exp);
  const at = ref.indexOf('@');
  if (at < 0) {
    return { globals: { ...scope.globals, [ref]: value }, outputs: scope.outputs };
  }
  const id = ref.slice(0, at);
  const [root, ...path] = ref.slice(at + 1).split('.');
  const own = { ...(scope.outputs[id] ?? {}) };
  if (path.length === 0) {
    own[root] = value;
  } else {
    const base = own[root];
    const top: Record<string, unknown> =
      base && typeof base === 'object' && !Array.isArray(base)
        ? structuredClone(base as Record<string, unknown>)
        : {};
    let cur = top;
    for (const seg of path.slice(0, -1)) {
      const next = cur[seg];
      cur[seg] = next && typeof next === 'object' && !Array.isArray(next) ? next : {};
      cur = cur[seg] as Record<string, unknown>;
    }
    cur[path[path.length - 1]] = value;
    own[root] = top;
  }
  return { globals: scope.globals, outputs: { ...scope.outputs, [id]: own } };
}
