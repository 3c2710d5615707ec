import { GraphErrorCode, GraphException } from './graph.exception';
import { pyCompare, pyEquals, pyStr } from './py-value';
import { type VariableScope, getVariableValue } from './variable-ref';

// RAGFlow's ListOperations (agent/component/list_operations.py): one operation on the list a
// `query` reference names; outputs `result`, `first` and `last`.

export const LIST_OPERATIONS = ['nth', 'head', 'tail', 'filter', 'sort', 'drop_duplicates'] as const;
export type ListOperation = (typeof LIST_OPERATIONS)[number];

const fail = (message: string) => new GraphException(GraphErrorCode.ComponentFailed, message);

/** `topn` is an alias of `head`; an empty operation is `nth`. */
function operationOf(raw: unknown): ListOperation {
  const op = raw === null || raw === undefined ? '' : String(raw).trim();
  const name = op.toLowerCase() === 'topn' ? 'head' : op || 'nth';
  if (!(LIST_OPERATIONS as readonly string[]).includes(name)) {
    throw fail(`Support operations ${name} is not supported, it should be in ${LIST_OPERATIONS.join(', ')}`);
  }
  return name as ListOperation;
}

const intOf = (v: unknown): number => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*[-+]?\d+\s*$/.test(v) ? Number(v) : NaN;
  return Number.isFinite(n) ? Math.trunc(n) : 0;
};

const strictOf = (v: unknown): boolean =>
  typeof v === 'string' ? ['1', 'true', 'yes', 'on'].includes(v.trim().toLowerCase()) : Boolean(v);

/** The filter's string comparisons (items are stringified as Python's `str`). */
export function listFilterMatches(item: unknown, operator: string, value: string): boolean {
  const v = item === null || item === undefined ? '' : pyStr(item);
  switch (operator) {
    case '=':
      return v === value;
    case '≠':
      return v !== value;
    case 'contains':
      return v.includes(value);
    case 'start with':
      return v.startsWith(value);
    case 'end with':
      return v.endsWith(value);
    default:
      return false;
  }
}

/** Python's `_hashable`: dicts compared by their sorted items, lists as tuples. */
function hashable(x: unknown): unknown {
  if (Array.isArray(x)) {
    return x.map(hashable);
  }
  if (x && typeof x === 'object') {
    return Object.entries(x as Record<string, unknown>)
      .map(([k, v]) => [k, hashable(v)])
      .sort((a, b) => pyCompare(a, b));
  }
  return x;
}

function sortItems(items: unknown[], params: Record<string, unknown>): unknown[] {
  const reverse = (params['sort_method'] || 'asc') === 'desc';
  if (items.length === 0) {
    return [];
  }
  let key: (x: unknown) => unknown = (x) => x;
  if (items[0] && typeof items[0] === 'object' && !Array.isArray(items[0])) {
    const sortBy = String(params['sort_by'] ?? '')
      .split(',')
      .map((k) => k.trim())
      .filter(Boolean);
    key = sortBy.length
      ? (x) => sortBy.map((k) => (x as Record<string, unknown>)[k] ?? null)
      : (x) => hashable(x);
  }
  const keyed = items.map((item) => ({ item, key: key(item) }));
  // Python's sorted(reverse=True) keeps equal items in their order, as a negated stable sort does.
  keyed.sort((a, b) => (reverse ? -1 : 1) * pyCompare(a.key, b.key));
  return keyed.map((k) => k.item);
}

function slice(items: unknown[], op: 'nth' | 'head' | 'tail', n: number, strict: boolean): unknown[] {
  const outOfRange = () => fail(`${op} requires n to be within the valid range in strict mode, got ${n}.`);
  if (op === 'nth') {
    if (n !== 0 && Math.abs(n) <= items.length) {
      return [items[n > 0 ? n - 1 : items.length + n]];
    }
    if (strict) {
      throw outOfRange();
    }
    return [];
  }
  if (strict && !(n >= 1 && n <= items.length)) {
    throw outOfRange();
  }
  if (n < 1) {
    return [];
  }
  return op === 'head' ? items.slice(0, n) : items.slice(-n);
}

/**
 * Runs the operation. Like RAGFlow, `first` and `last` are written into the declared outputs: a
 * DSL whose `outputs` declare only `result` (all.json's `ListOperations:Sort`) fails on the
 * missing key, as the upstream run of that branch does.
 */
export function listOperations(
  scope: VariableScope,
  params: Record<string, unknown>,
): { result: unknown[]; first: unknown; last: unknown } {
  const op = operationOf(params['operations']);
  if (!params['query']) {
    throw fail('query does not support empty value.');
  }
  const items = getVariableValue(scope, String(params['query']));
  if (!Array.isArray(items)) {
    throw fail('The input of List Operations should be an array.');
  }
  let result: unknown[];
  switch (op) {
    case 'nth':
    case 'head':
    case 'tail':
      result = slice(items, op, intOf(params['n']), strictOf(params['strict']));
      break;
    case 'filter': {
      const filter = (params['filter'] ?? {}) as { operator?: string; value?: unknown };
      result = items.filter((i) =>
        listFilterMatches(i, filter.operator ?? '=', filter.value === undefined ? '' : pyStr(filter.value)),
      );
      break;
    }
    case 'sort':
      result = sortItems(items, params);
      break;
    case 'drop_duplicates': {
      const seen: unknown[] = [];
      result = items.filter((item) => {
        const k = hashable(item);
        if (seen.some((s) => pyEquals(s, k))) {
          return false;
        }
        seen.push(k);
        return true;
      });
      break;
    }
  }
  const declared = params['outputs'];
  if (declared && typeof declared === 'object') {
    for (const key of ['result', 'first', 'last']) {
      if (!Object.hasOwn(declared, key)) {
        throw fail(
          `KeyError '${key}': the DSL declares the outputs ${Object.keys(declared).join(', ') || 'none'}, ` +
            'and ListOperations writes result, first and last',
        );
      }
    }
  }
  return { result, first: result.length ? result[0] : null, last: result.length ? result.at(-1) : null };
}
