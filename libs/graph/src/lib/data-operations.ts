import { templateText } from './data-components';
import { GraphErrorCode, GraphException } from './graph.exception';
import { listFilterMatches } from './list-operations';
import { pyLiteralEval } from './py-literal';
import { type VariableScope, getVariableValue, renderTemplate } from './variable-ref';

// RAGFlow's DataOperations (agent/component/data_operations.py): the dicts collected from the
// `query` references (lists flattened, anything that is not a dict dropped), one operation, one
// `result` output.

export const DATA_OPERATIONS = [
  'select_keys',
  'literal_eval',
  'combine',
  'filter_values',
  'append_or_update',
  'remove_keys',
  'rename_keys',
] as const;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => Boolean(v) && typeof v === 'object' && !Array.isArray(v);

/** `get_value_with_variable(text) or text`: a template rendered, its literal kept when empty. */
const withVariables = (scope: VariableScope, v: unknown): unknown => {
  if (typeof v !== 'string') {
    return v;
  }
  return renderTemplate(scope, v, templateText) || v;
};

/** `_recursive_eval`: strings that look like Python literals are evaluated, the rest kept. */
export function literalEval(data: unknown): unknown {
  if (Array.isArray(data)) {
    return data.map(literalEval);
  }
  if (isObj(data)) {
    return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, literalEval(v)]));
  }
  if (typeof data !== 'string') {
    return data;
  }
  const s = data.trim();
  const looksLiteral =
    /^[{[('"]/.test(s) ||
    ['true', 'false', 'none'].includes(s.toLowerCase()) ||
    /^\d+$/.test(s.replace(/\./g, ''));
  if (!looksLiteral) {
    return data;
  }
  try {
    return pyLiteralEval(s);
  } catch {
    return data;
  }
}

function combine(objects: Obj[]): Obj {
  const out: Obj = {};
  for (const obj of objects) {
    for (const [key, value] of Object.entries(obj)) {
      const prev = out[key];
      if (!Object.hasOwn(out, key)) {
        out[key] = Array.isArray(value) ? [...value] : value;
      } else if (Array.isArray(prev)) {
        out[key] = Array.isArray(value) ? [...prev, ...value] : [...prev, value];
      } else {
        out[key] = Array.isArray(value) ? [prev, ...value] : [prev, value];
      }
    }
  }
  return out;
}

export function dataOperations(scope: VariableScope, params: Record<string, unknown>): { result: unknown } {
  const op = String(params['operations'] ?? 'literal_eval');
  if (!(DATA_OPERATIONS as readonly string[]).includes(op)) {
    throw new GraphException(
      GraphErrorCode.ComponentFailed,
      `Support operations ${op} is not supported, it should be in ${DATA_OPERATIONS.join(', ')}`,
    );
  }
  const refs = Array.isArray(params['query']) ? params['query'] : [params['query']];
  const objects: Obj[] = [];
  for (const ref of refs) {
    if (typeof ref !== 'string' || !ref) {
      continue;
    }
    const value = getVariableValue(scope, ref);
    if (isObj(value)) {
      objects.push(value);
    } else if (Array.isArray(value)) {
      objects.push(...value.filter(isObj));
    }
  }
  const list = (name: string): unknown[] => (Array.isArray(params[name]) ? (params[name] as unknown[]) : []);
  switch (op) {
    case 'select_keys': {
      const keys = list('select_keys').map(String);
      return {
        result: objects.map((o) => Object.fromEntries(Object.entries(o).filter(([k]) => keys.includes(k)))),
      };
    }
    case 'literal_eval':
      return { result: literalEval(objects) };
    case 'combine':
      return { result: combine(objects) };
    case 'filter_values': {
      const rules = list('filter_values').filter(isObj);
      const matches = (o: Obj, rule: Obj) => {
        const key = String(rule['key'] ?? '');
        const target = rule['value'] === null || rule['value'] === undefined ? '' : String(rule['value']);
        const op = String(rule['operator'] || 'equals').toLowerCase();
        return Object.hasOwn(o, key) && listFilterMatches(o[key], op, String(withVariables(scope, target)));
      };
      return { result: objects.filter((o) => rules.every((r) => matches(o, r))) };
    }
    case 'append_or_update':
      return {
        result: objects.map((o) => {
          const next = { ...o };
          for (const item of list('updates').filter(isObj)) {
            const key = String(item['key'] ?? '').trim();
            if (key) {
              next[key] = withVariables(scope, item['value']);
            }
          }
          return next;
        }),
      };
    case 'remove_keys': {
      const keys = list('remove_keys').filter((k): k is string => typeof k === 'string');
      return {
        result: objects.map((o) => Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)))),
      };
    }
    default: {
      const pairs = list('rename_keys').filter(isObj);
      return {
        result: objects.map((o) => {
          const next = { ...o };
          for (const pair of pairs) {
            const from = String(pair['old_key'] ?? '').trim();
            const to = String(pair['new_key'] ?? '').trim();
            if (from && to && from !== to && Object.hasOwn(next, from)) {
              const value = next[from];
              delete next[from];
              next[to] = value;
            }
          }
          return next;
        }),
      };
    }
  }
}
