import { COMPONENTS, componentDescriptor } from './components';
import type { Canvas, NormalizedComponent } from './dsl.schema';
import { GraphErrorCode, GraphException, type GraphProblem, describeProblems } from './graph.exception';
import { parseCanvas } from './normalize-dsl';
import { variableRefPattern } from './variable-ref';

/** The component classes that run here (COMPONENTS): anything else is unknown, refused on save. */
export const KNOWN_COMPONENTS: ReadonlySet<string> = new Set(Object.keys(COMPONENTS));

// Component ids become node names and appear in references, so they keep to RAGFlow's ref syntax.
const COMPONENT_ID = /^[A-Za-z0-9_:]+$/;

/** What the class's descriptor refuses of its params: its schema's issues, then its own check. */
function componentParamProblems(c: NormalizedComponent): GraphProblem[] {
  const descriptor = componentDescriptor(c.name);
  const parsed = descriptor?.params?.safeParse(c.params);
  const schemaProblems: GraphProblem[] = (parsed && !parsed.success ? parsed.error.issues : []).map(
    (issue) => ({
      code: GraphErrorCode.MissingParam,
      component: c.id,
      field: issue.path.map(String).join('.') || 'params',
      message: issue.message,
    }),
  );
  return [...schemaProblems, ...(descriptor?.check?.(c) ?? [])];
}

/** Where a component sends the run: field → targets. */
function targets(c: NormalizedComponent): [string, string[]][] {
  const out: [string, string[]][] = [
    ['downstream', c.downstream],
    ['upstream', c.upstream],
  ];
  if (c.parentId) {
    out.push(['parent_id', [c.parentId]]);
  }
  // Where a failure goes under the exception policy (RAGFlow `exception_goto`).
  if (Array.isArray(c.params['exception_goto'])) {
    out.push([
      'exception_goto',
      (c.params['exception_goto'] as unknown[]).filter((id) => id !== '').map(String),
    ]);
  }
  if (c.name === 'Switch') {
    const conditions = Array.isArray(c.params['conditions'])
      ? (c.params['conditions'] as { to?: unknown }[])
      : [];
    conditions.forEach((cond, i) => {
      if (Array.isArray(cond?.to)) {
        out.push([`conditions.${i}.to`, cond.to.map(String)]);
      }
    });
    if (Array.isArray(c.params['end_cpn_ids'])) {
      out.push(['end_cpn_ids', (c.params['end_cpn_ids'] as unknown[]).map(String)]);
    }
  }
  if (
    c.name === 'Categorize' &&
    c.params['category_description'] &&
    typeof c.params['category_description'] === 'object'
  ) {
    for (const [name, d] of Object.entries(
      c.params['category_description'] as Record<string, { to?: unknown }>,
    )) {
      if (Array.isArray(d?.to)) {
        out.push([`category_description.${name}.to`, d.to.map(String)]);
      }
    }
  }
  return out;
}

function textRefProblems(canvas: Canvas, c: NormalizedComponent): GraphProblem[] {
  const problems: GraphProblem[] = [];
  const visit = (v: unknown, path: string[]): void => {
    if (typeof v === 'string') {
      for (const m of v.matchAll(variableRefPattern())) {
        const at = m[1].indexOf('@');
        const id = at > 0 ? m[1].slice(0, at) : undefined;
        if (id && !canvas.components[id]) {
          problems.push({
            code: GraphErrorCode.DanglingReference,
            component: c.id,
            field: path.join('.'),
            message: `references {${m[1]}}, but there is no component "${id}"`,
          });
        }
      }
    } else if (Array.isArray(v)) {
      v.forEach((x, i) => visit(x, [...path, String(i)]));
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        visit(x, [...path, k]);
      }
    }
  };
  // An Agent's tools carry sub-agents with their own ids and refs: checked when they run.
  const { tools: _tools, ...params } = c.params;
  visit(params, []);
  return problems;
}

function insideLoop(canvas: Canvas, c: NormalizedComponent | undefined): boolean {
  const seen = new Set<string>();
  for (let p = c?.parentId; p && !seen.has(p); p = canvas.components[p]?.parentId) {
    seen.add(p);
    if (canvas.components[p]?.name === 'Loop') {
      return true;
    }
  }
  return false;
}

function cycleProblems(canvas: Canvas): GraphProblem[] {
  const edges = new Map<string, string[]>();
  for (const c of Object.values(canvas.components)) {
    if (insideLoop(canvas, c)) {
      continue;
    }
    const to = targets(c)
      .filter(([field]) => field !== 'upstream' && field !== 'parent_id')
      .flatMap(([, ids]) => ids)
      .filter((id) => canvas.components[id] && !insideLoop(canvas, canvas.components[id]));
    edges.set(c.id, [...new Set(to)]);
  }
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  let found: GraphProblem | undefined;
  const visit = (id: string): void => {
    state.set(id, 'open');
    stack.push(id);
    for (const next of edges.get(id) ?? []) {
      if (found) {
        return;
      }
      if (state.get(next) === 'open') {
        const cycle = [...stack.slice(stack.indexOf(next)), next];
        found = {
          code: GraphErrorCode.Cycle,
          component: id,
          field: 'downstream',
          message: `cycle outside a Loop: ${cycle.join(' → ')}`,
        };
        return;
      }
      if (!state.has(next)) {
        visit(next);
      }
    }
    stack.pop();
    state.set(id, 'done');
  };
  for (const id of edges.keys()) {
    if (!state.has(id) && !found) {
      visit(id);
    }
  }
  return found ? [found] : [];
}

/** Every problem of a parsed canvas: ids, component names, references, cycles, required params. */
export function canvasProblems(canvas: Canvas): GraphProblem[] {
  const problems: GraphProblem[] = [];
  const begin = canvas.components['begin'];
  if (!begin || begin.name !== 'Begin') {
    problems.push({
      code: GraphErrorCode.MissingParam,
      component: 'begin',
      field: 'component_name',
      message: 'a canvas starts at a Begin component with the id "begin"',
    });
  }
  for (const c of Object.values(canvas.components)) {
    if (!COMPONENT_ID.test(c.id)) {
      problems.push({
        code: GraphErrorCode.InvalidDsl,
        component: c.id,
        field: 'id',
        message: 'component ids are letters, digits, "_" and ":"',
      });
    }
    if (!KNOWN_COMPONENTS.has(c.name)) {
      problems.push({
        code: GraphErrorCode.UnknownComponent,
        component: c.id,
        field: 'component_name',
        message: `unknown component "${c.name}"`,
      });
      continue;
    }
    for (const [field, ids] of targets(c)) {
      for (const id of ids) {
        if (!canvas.components[id]) {
          problems.push({
            code: GraphErrorCode.DanglingReference,
            component: c.id,
            field,
            message: `names "${id}", which is not a component of the canvas`,
          });
        }
      }
    }
    problems.push(...textRefProblems(canvas, c), ...componentParamProblems(c));
  }
  return [...problems, ...cycleProblems(canvas)];
}

/** Parses and validates a DSL (any of its forms); throws a {@link GraphException} listing every problem. */
export function validateCanvas(raw: unknown): Canvas {
  const canvas = parseCanvas(raw);
  const problems = canvasProblems(canvas);
  if (problems.length) {
    throw new GraphException(problems[0].code, describeProblems(problems), problems);
  }
  return canvas;
}
