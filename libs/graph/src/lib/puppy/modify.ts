import { GraphErrorCode, GraphException } from '../graph.exception';
import { pyJsonDumps, pyStr } from '../py-value';

/** PuppyEngine's modify sub-types (`ModifierFactory._strategies`). */
export const MODIFY_TYPES = [
  'copy',
  'convert2text',
  'convert2structured',
  'edit_text',
  'edit_structured',
] as const;
export type ModifyType = (typeof MODIFY_TYPES)[number];
/** The edit_structured operations this runtime runs; the others are refused when saved. */
export const EDIT_STRUCTURED_OPERATIONS = new Set(['get']);
/** The convert2structured modes this runtime runs. */
export const CONVERT2STRUCTURED_MODES = new Set([
  'wrap_into_dict',
  'parse_as_json',
  'parse_as_list',
  'split_by_length',
  'split_by_character',
]);

const fail = (message: string): never => {
  throw new GraphException(GraphErrorCode.ComponentFailed, message);
};

// Python json.dumps with its defaults: ", "/": " separators and non-ASCII escaped.
const jsonDumpsAscii = (v: unknown): string =>
  pyJsonDumps(v).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** edit_structured `get` (`_nested_get`): the value at `path`, else `fallback`; `["*"]` is all of it. */
export function nestedGet(content: unknown, path: readonly unknown[], fallback: unknown = null): unknown {
  if (path.length === 1 && path[0] === '*') {
    return content;
  }
  let current = content;
  for (const key of path) {
    if (Array.isArray(current)) {
      const i = typeof key === 'number' ? key : /^-?\d+$/.test(String(key)) ? Number(key) : NaN;
      if (!Number.isInteger(i) || i >= current.length || i < -current.length) {
        return fallback;
      }
      current = current[i < 0 ? current.length + i : i];
    } else if (current !== null && typeof current === 'object') {
      // A Python dict's keys are typed: the path's 0 does not find the key "0".
      if (typeof key !== 'string' || !Object.hasOwn(current, key)) {
        return fallback;
      }
      current = (current as Record<string, unknown>)[key];
    } else {
      return fail(
        `Cannot index into ${current === null ? 'None' : typeof current} with key '${String(key)}'`,
      );
    }
  }
  return current;
}

function splitByCharacters(text: string, delimiters: readonly string[]): string[] {
  const escaped = delimiters.map((d) => d.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return text
    .split(new RegExp(escaped.join('|')))
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function convert2structured(content: unknown, extra: Record<string, unknown>): unknown {
  const mode = typeof extra['conversion_mode'] === 'string' ? extra['conversion_mode'] : 'wrap_into_dict';
  if (typeof content !== 'string' || content === '') {
    return mode.includes('dict') ? {} : [];
  }
  switch (mode) {
    case 'wrap_into_dict':
      return { [typeof extra['dict_key'] === 'string' ? extra['dict_key'] : 'value']: content };
    case 'parse_as_json':
      try {
        return JSON.parse(content) as unknown;
      } catch {
        return fail('the text is not JSON');
      }
    case 'parse_as_list': {
      try {
        const parsed = JSON.parse(content.trim()) as unknown;
        return Array.isArray(parsed) ? parsed : [parsed];
      } catch {
        return [content.trim()];
      }
    }
    case 'split_by_length': {
      const size = extra['length_separator'] ?? 1000;
      if (typeof size !== 'number' || !Number.isInteger(size) || size <= 0) {
        return fail('text_unit_size must be a positive integer');
      }
      const chars = [...content];
      const out: string[] = [];
      for (let i = 0; i < chars.length; i += size) {
        out.push(chars.slice(i, i + size).join(''));
      }
      return out;
    }
    case 'split_by_character': {
      const delimiters = Array.isArray(extra['list_separator']) ? extra['list_separator'].map(String) : [','];
      return delimiters.length ? splitByCharacters(content, delimiters) : [content];
    }
    default:
      return fail(`Unsupported conversion mode: ${mode}`);
  }
}

function editText(content: unknown, extra: Record<string, unknown>): unknown {
  const text = typeof content === 'string' ? content : pyStr(content);
  const chars = [...text];
  const slice = Array.isArray(extra['slice']) ? extra['slice'] : [0, -1];
  const start = Number(slice[0] ?? 0);
  const end = Number(slice[1] ?? -1);
  // Python slicing: negative indices count from the end; -1 as the end means "to the end" here.
  const at = (i: number) => (i < 0 ? Math.max(chars.length + i, 0) : Math.min(i, chars.length));
  let out = chars.slice(at(start), end === -1 ? chars.length : at(end));
  const sort = extra['sort_type'];
  if (sort === 'ascending' || sort === 'descending') {
    out = [...out].sort();
    if (sort === 'descending') {
      out.reverse();
    }
  }
  return out.join('');
}

/**
 * Runs a modify edge on its (placeholder-rendered) content: `copy`, `convert2text` (json.dumps of
 * structures, str() of the rest), `convert2structured` (its conversion modes), `edit_text` (slice
 * and sort) and `edit_structured` (its `get` operations, in order).
 */
export function runModify(type: ModifyType, content: unknown, extra: Record<string, unknown> = {}): unknown {
  switch (type) {
    case 'copy':
      return structuredClone(content);
    case 'convert2text':
      return content !== null && typeof content === 'object' ? jsonDumpsAscii(content) : pyStr(content);
    case 'convert2structured':
      return convert2structured(content, extra);
    case 'edit_text':
      return editText(content, extra);
    case 'edit_structured': {
      let result = content;
      const operations = Array.isArray(extra['operations'])
        ? (extra['operations'] as Record<string, unknown>[])
        : [];
      for (const op of operations) {
        const params = (op['params'] ?? {}) as Record<string, unknown>;
        if (op['type'] !== 'get') {
          return fail(`Unsupported operation type: ${String(op['type'])}`);
        }
        result = nestedGet(
          result,
          Array.isArray(params['path']) ? params['path'] : [],
          params['default'] ?? null,
        );
      }
      return result;
    }
  }
}
