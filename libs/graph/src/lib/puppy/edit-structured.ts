import { GraphErrorCode, GraphException } from '../graph.exception';
import { pyCompare, pyEquals, pyTypeName } from '../py-value';

/** PuppyEngine's edit_structured operations (`ModifyEditStructured.modify`), all run here. */
export const EDIT_STRUCTURED_OPERATIONS = new Set([
  'get',
  'delete',
  'append',
  'insert',
  'sort',
  'set_value',
  'get_keys',
  'get_values',
  'variable_replace',
  'set_operation',
]);
/** `set_operation`'s operations; another name gives an empty list upstream. */
export const SET_OPERATIONS = new Set(['union', 'intersection', 'difference', 'symmetric_difference']);

type Json = Record<string, unknown>;
type Key = unknown;

const fail = (message: string): never => {
  throw new GraphException(GraphErrorCode.ComponentFailed, message);
};
const isDict = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A miss Python answers with KeyError, IndexError or ValueError: the operation's fallback. */
class Miss extends Error {}

/** Python `int(key)` as a list index: numbers truncate, booleans are 0/1, digit strings parse. */
function pyIndex(key: Key): number {
  if (typeof key === 'boolean') {
    return key ? 1 : 0;
  }
  if (typeof key === 'number' && Number.isFinite(key)) {
    return Math.trunc(key);
  }
  if (typeof key === 'string' && /^\s*[-+]?\d+(_\d+)*\s*$/.test(key)) {
    return Number(key.replace(/_/g, ''));
  }
  throw new Miss();
}

/** `list[int(key)]`'s position, Python's negative indices included; a miss past either end. */
function listPosition(list: readonly unknown[], key: Key): number {
  const i = pyIndex(key);
  if (i >= list.length || i < -list.length) {
    throw new Miss();
  }
  return i < 0 ? list.length + i : i;
}

/** One step of a path: `dict[key]` (keys are typed: 0 does not find "0") or `list[int(key)]`. */
function step(current: unknown, key: Key): unknown {
  if (Array.isArray(current)) {
    return current[listPosition(current, key)];
  }
  if (isDict(current)) {
    if (typeof key !== 'string' || !Object.hasOwn(current, key)) {
      throw new Miss();
    }
    return current[key];
  }
  return fail(
    `Cannot index into ${pyTypeName(current)} with key '${String(key)}'. Only dict and list are supported.`,
  );
}

/** `_nested_get`: the value at `path` (`["*"]` is the whole content), else `fallback`. */
export function nestedGet(content: unknown, path: readonly Key[], fallback: unknown = null): unknown {
  if (path.length === 1 && path[0] === '*') {
    return content;
  }
  try {
    return path.reduce<unknown>(step, content);
  } catch (err) {
    if (err instanceof Miss) {
      return fallback;
    }
    throw err;
  }
}

/** `_navigate_to_parent`: the container holding the path's last key, or undefined on a miss. */
function parentOf(content: unknown, path: readonly Key[]): { parent: unknown; last: Key } | undefined {
  if (path.length === 0) {
    return undefined;
  }
  try {
    return { parent: path.slice(0, -1).reduce<unknown>(step, content), last: path[path.length - 1] };
  } catch (err) {
    if (err instanceof Miss) {
      return undefined;
    }
    throw err;
  }
}

/** The most `{}` items a `set_value` pads a list with (upstream: unbounded). */
export const MAX_PADDING = 10_000;

/** `_ensure_path_exists`: missing dict keys become `{}`, short lists are padded with `{}`. */
function ensurePath(content: unknown, path: readonly Key[]): void {
  let current = content;
  for (const key of path) {
    if (isDict(current)) {
      const k = String(key);
      if (!Object.hasOwn(current, k)) {
        current[k] = {};
      }
      current = current[k];
    } else if (Array.isArray(current)) {
      let i: number;
      try {
        i = pyIndex(key);
      } catch {
        return fail(`invalid literal for int() with base 10: '${String(key)}'`);
      }
      if (i >= current.length + MAX_PADDING) {
        // Upstream pads a list of 3 to index 10**9 with {} (and runs out of memory); inline here,
        // that would take the orchestrator down with it.
        return fail(
          `set_value would pad a list of ${current.length} items to index ${i}: at most ${MAX_PADDING} items are added`,
        );
      }
      while (current.length <= i) {
        current.push({});
      }
      if (i < -current.length) {
        return fail('list index out of range');
      }
      current = current[i < 0 ? current.length + i : i];
    }
    // Any other value is left as it is and the walk goes on from it, as upstream does.
  }
}

/** `_collect_paths`: the path of every leaf, a path stopping at `maxDepth` (-1: no limit). */
function collectPaths(data: unknown, path: Key[], maxDepth: number, depth = 0): Key[][] {
  if (maxDepth !== -1 && depth >= maxDepth) {
    return path.length ? [path] : [];
  }
  if (isDict(data)) {
    return Object.entries(data).flatMap(([k, v]) => collectPaths(v, [...path, k], maxDepth, depth + 1));
  }
  if (Array.isArray(data)) {
    return data.flatMap((v, i) => collectPaths(v, [...path, i], maxDepth, depth + 1));
  }
  return [path];
}

const hashable = (v: unknown) => typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean';

/** The distinct items of a list (Python set equality: 1, 1.0 and True are one), first kept. */
function distinct(list: readonly unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const item of list.filter(hashable)) {
    if (!out.some((x) => pyEquals(x, item))) {
      out.push(item);
    }
  }
  return out;
}

/**
 * `_nested_set_operation` on two lists (`value1`/`value2` when both are non-empty lists, else the
 * lists at `path1`/`path2`; not lists → `[]`). Unhashable items are dropped. Upstream returns
 * `list(set)`, whose order follows Python's string hashes (random per process): here items come
 * in first-appearance order, the first list's first.
 */
function setOperation(content: unknown, params: Json): unknown[] {
  const v1 = params['value1'];
  const v2 = params['value2'];
  let a: unknown;
  let b: unknown;
  if (Array.isArray(v1) && v1.length && Array.isArray(v2) && v2.length) {
    [a, b] = [v1, v2];
  } else {
    a = nestedGet(content, asPath(params['path1']));
    b = nestedGet(content, asPath(params['path2']));
    if (!Array.isArray(a) || !Array.isArray(b)) {
      return [];
    }
  }
  const left = distinct(a as unknown[]);
  const right = distinct(b as unknown[]);
  const inRight = (x: unknown) => right.some((y) => pyEquals(x, y));
  const inLeft = (y: unknown) => left.some((x) => pyEquals(x, y));
  switch (params['operation'] ?? 'union') {
    case 'union':
      return [...left, ...right.filter((y) => !inLeft(y))];
    case 'intersection':
      return left.filter(inRight);
    case 'difference':
      return left.filter((x) => !inRight(x));
    case 'symmetric_difference':
      return [...left.filter((x) => !inRight(x)), ...right.filter((y) => !inLeft(y))];
    default:
      return [];
  }
}

/** `_replace_structured_variable_values`: `{{name}}` in every string value → `plugins[name]`. */
function variableReplace(value: unknown, plugins: Json): unknown {
  if (typeof value === 'string') {
    return value.replace(/\{\{(.*?)\}\}/g, (whole, name: string) => {
      if (!Object.hasOwn(plugins, name)) {
        return whole;
      }
      const v = plugins[name];
      return typeof v === 'string' ? v : fail(`expected str instance, ${pyTypeName(v)} found`);
    });
  }
  if (Array.isArray(value)) {
    return value.map((x) => variableReplace(x, plugins));
  }
  if (isDict(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, variableReplace(v, plugins)]));
  }
  return value;
}

const asPath = (v: unknown): Key[] => (Array.isArray(v) ? v : []);

/** One operation on `content` (which it may change in place, as upstream's do): the new content. */
function applyOperation(content: unknown, type: unknown, params: Json): unknown {
  const path = asPath(params['path']);
  switch (type) {
    case 'get':
      return nestedGet(content, path, params['default'] ?? null);
    case 'delete': {
      const at = parentOf(content, path);
      if (at && isDict(at.parent) && typeof at.last === 'string') {
        delete at.parent[at.last];
      } else if (at && Array.isArray(at.parent)) {
        try {
          at.parent.splice(listPosition(at.parent, at.last), 1);
        } catch (err) {
          if (!(err instanceof Miss)) {
            throw err;
          }
        }
      }
      return content;
    }
    case 'set_value': {
      if (path.length === 0) {
        return content;
      }
      ensurePath(content, path.slice(0, -1));
      const at = parentOf(content, path);
      if (at && isDict(at.parent)) {
        at.parent[String(at.last)] = params['value'] ?? null;
      } else if (at && Array.isArray(at.parent)) {
        try {
          at.parent[listPosition(at.parent, at.last)] = params['value'] ?? null;
        } catch (err) {
          if (!(err instanceof Miss)) {
            throw err;
          }
        }
      }
      return content;
    }
    case 'append': {
      const target = nestedGet(content, path);
      if (Array.isArray(target)) {
        target.push(params['value'] ?? null);
      }
      return content;
    }
    case 'insert': {
      const target = nestedGet(content, path);
      if (Array.isArray(target)) {
        // list.insert clamps its index to the list; a negative one counts from the end.
        const i = Number(params['index'] ?? 0);
        const at = i < 0 ? Math.max(target.length + i, 0) : Math.min(i, target.length);
        target.splice(at, 0, params['value'] ?? null);
      }
      return content;
    }
    case 'sort': {
      const target = nestedGet(content, path);
      if (Array.isArray(target)) {
        const reverse = params['reverse'] === true;
        try {
          // Stable both ways, as Python's sort (reverse keeps equal items in their order).
          const sorted = [...target].sort((x, y) => (reverse ? pyCompare(y, x) : pyCompare(x, y)));
          target.splice(0, target.length, ...sorted);
        } catch {
          // Items Python cannot order (TypeError): the list is left as it was.
        }
      }
      return content;
    }
    case 'get_keys':
      return collectPaths(content, [], Number(params['max_depth'] ?? -1));
    case 'get_values':
      return collectPaths(content, [], Number(params['max_depth'] ?? -1)).map((p) => nestedGet(content, p));
    case 'variable_replace':
      return variableReplace(content, isDict(params['plugins']) ? params['plugins'] : {});
    case 'set_operation':
      return setOperation(content, params);
    default:
      return fail(`Unsupported operation type: ${String(type)}`);
  }
}

/**
 * Runs edit_structured's operations in order, each on the previous one's result (`get`,
 * `get_keys`, `get_values` and `set_operation` replace the content; the others edit it). The
 * content is copied first: upstream edits the input block's own object in place.
 */
export function editStructured(content: unknown, operations: readonly unknown[]): unknown {
  let result = structuredClone(content);
  for (const op of operations) {
    const o = isDict(op) ? op : {};
    const params = isDict(o['params']) ? o['params'] : {};
    try {
      result = applyOperation(result, o['type'], params);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      return fail(`Error executing structured operation \`${String(o['type'])}\`: ${why}`);
    }
  }
  return result;
}
