import { GraphErrorCode, GraphException } from '../graph.exception';
import { pyLiteralEval } from '../py-literal';
import { pyJsonDumps, pyStr, pyStrip } from '../py-value';
import { editStructured } from './edit-structured';

export { EDIT_STRUCTURED_OPERATIONS, nestedGet } from './edit-structured';

/** PuppyEngine's modify sub-types (`ModifierFactory._strategies`). */
export const MODIFY_TYPES = [
  'copy',
  'convert2text',
  'convert2structured',
  'edit_text',
  'edit_structured',
] as const;
export type ModifyType = (typeof MODIFY_TYPES)[number];
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

/** `re.split("|".join(map(re.escape, delimiters)), text)`: the pieces between any delimiter. */
export function splitByDelimiters(text: string, delimiters: readonly string[]): string[] {
  const escaped = delimiters.map((d) => d.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return text.split(new RegExp(escaped.join('|')));
}

/** `_try_parse_python_literal`: `ast.literal_eval` giving a dict or list (a set is neither). */
function pythonStructure(text: string): { value: unknown } | undefined {
  try {
    const value = pyLiteralEval(text);
    const isSet = Array.isArray(value) && text.trimStart().startsWith('{');
    return value !== null && typeof value === 'object' && !isSet ? { value } : undefined;
  } catch {
    return undefined;
  }
}

/** `json.loads`, or undefined. */
function jsonValue(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

interface Segment {
  start: number;
  end: number;
  value: unknown;
}

/**
 * `_extract_json_segments`: each `{…}` / `[…]` whose brackets balance (counting only its own kind
 * of bracket, quotes ignored, as upstream) and that parses as a Python literal or JSON. Scanning
 * goes on after the closing bracket, parsed or not.
 */
function jsonSegments(text: string): Segment[] {
  const segments: Segment[] = [];
  let i = 0;
  while (i < text.length) {
    const open = text[i];
    if (open !== '{' && open !== '[') {
      i++;
      continue;
    }
    const close = open === '{' ? '}' : ']';
    const start = i;
    let level = 1;
    i++;
    while (i < text.length && level > 0) {
      level += text[i] === open ? 1 : text[i] === close ? -1 : 0;
      i++;
    }
    if (level === 0) {
      const piece = text.slice(start, i);
      const parsed = pythonStructure(piece) ?? jsonValue(piece);
      if (parsed) {
        segments.push({ start, end: i, value: parsed.value });
      }
    }
  }
  return segments;
}

/** The text around and between segments, each piece stripped, and the segments' values. */
function interleave(
  text: string,
  segments: readonly Segment[],
  onText: (s: string) => void,
  onValue: (v: unknown) => void,
): void {
  let last = 0;
  for (const seg of segments) {
    const prefix = pyStrip(text.slice(last, seg.start));
    if (seg.start > last && prefix) {
      onText(prefix);
    }
    onValue(seg.value);
    last = seg.end;
  }
  const suffix = pyStrip(text.slice(last));
  if (last < text.length && suffix) {
    onText(suffix);
  }
}

/**
 * `parse_json_from_string`: the whole text as a Python literal (dict/list), else as JSON (any
 * value), else a dict of its pieces: `text_<n>` for the text between structures, `dict_<n>` /
 * `list_<n>` for each structure found, `{text_1: text}` when none is.
 */
function parseAsJson(text: string): unknown {
  const whole = pythonStructure(pyStrip(text)) ?? jsonValue(text);
  if (whole) {
    return whole.value;
  }
  const segments = jsonSegments(text);
  if (!segments.length) {
    return { text_1: pyStrip(text) };
  }
  const out: Record<string, unknown> = {};
  const n = { text: 1, dict: 1, list: 1 };
  interleave(
    text,
    segments,
    (t) => {
      out[`text_${n.text++}`] = t;
    },
    (v) => {
      if (Array.isArray(v)) {
        out[`list_${n.list++}`] = v;
      } else {
        out[`dict_${n.dict++}`] = v;
      }
    },
  );
  return out;
}

/**
 * `_extract_mixed_content_to_list`: the whole text as a list (a Python literal dict or JSON scalar
 * is wrapped; an empty list is falsy upstream and falls through), else the text's pieces in
 * order — texts stripped, structures parsed — else `[text]`.
 */
function parseAsList(text: string): unknown[] {
  const trimmed = pyStrip(text);
  if (!trimmed) {
    return [];
  }
  const whole = pythonStructure(trimmed) ?? jsonValue(trimmed);
  const list = whole === undefined ? undefined : Array.isArray(whole.value) ? whole.value : [whole.value];
  if (list?.length) {
    return list;
  }
  const segments = jsonSegments(text);
  if (!segments.length) {
    return [trimmed];
  }
  const out: unknown[] = [];
  interleave(
    text,
    segments,
    (t) => out.push(t),
    (v) => out.push(v),
  );
  return out;
}

/** The delimiters of `split_by_character`: a list, or a text read as its characters (as Python joins it). */
const delimiterList = (v: unknown): string[] =>
  typeof v === 'string' ? [...v] : Array.isArray(v) ? v.map(String) : [','];

function convert2structured(content: unknown, extra: Record<string, unknown>): unknown {
  const mode = typeof extra['conversion_mode'] === 'string' ? extra['conversion_mode'] : 'wrap_into_dict';
  if (typeof content !== 'string' || content === '') {
    return mode.includes('dict') ? {} : [];
  }
  switch (mode) {
    case 'wrap_into_dict':
      return { [extra['dict_key'] === undefined ? 'value' : pyStr(extra['dict_key'])]: content };
    case 'parse_as_json':
      return parseAsJson(content);
    case 'parse_as_list':
      return parseAsList(content);
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
      const delimiters = delimiterList(extra['list_separator']);
      if (!delimiters.length) {
        return [content];
      }
      return splitByDelimiters(content, delimiters)
        .map(pyStrip)
        .filter((s) => s !== '');
    }
    default:
      return fail(`Unsupported conversion mode: ${mode}`);
  }
}

const byCodePoint = (a: string, b: string) => a.codePointAt(0)! - b.codePointAt(0)!;

/**
 * `ModifyEditText`: `content[slice[0]:slice[1]]` (an end of -1 meaning "to the end", so the last
 * character cannot be cut that way, as upstream), then its characters sorted for `sort_type`
 * ascending/descending (anything else, like PuppyFlow's "/", leaves them).
 */
function editText(content: unknown, extra: Record<string, unknown>): unknown {
  const chars = [...(typeof content === 'string' ? content : pyStr(content))];
  const slice = Array.isArray(extra['slice']) ? extra['slice'] : [0, -1];
  // A null bound is Python's None: from the start, to the end.
  const start = Number(slice[0] ?? 0);
  const end = slice[1] === null ? -1 : Number(slice[1] ?? -1);
  // Python slicing: negative indices count from the end and out-of-range ones are clamped.
  const at = (i: number) => (i < 0 ? Math.max(chars.length + i, 0) : Math.min(i, chars.length));
  const out = chars.slice(at(start), end === -1 ? chars.length : at(end));
  const sort = extra['sort_type'];
  if (sort === 'ascending') {
    out.sort(byCodePoint);
  } else if (sort === 'descending') {
    out.sort((a, b) => byCodePoint(b, a));
  }
  return out.join('');
}

/**
 * Runs a modify edge on its (placeholder-rendered) content, as `ModifierFactory`: `copy`,
 * `convert2text` (json.dumps of structures, str() of the rest), `convert2structured` (its five
 * conversion modes), `edit_text` (slice and sort) and `edit_structured` (its operations, in order).
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
    case 'edit_structured':
      return editStructured(content, Array.isArray(extra['operations']) ? extra['operations'] : []);
  }
}
