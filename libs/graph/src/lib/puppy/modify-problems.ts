import { GraphErrorCode, type GraphProblem } from '../graph.exception';
import { EDIT_STRUCTURED_OPERATIONS, SET_OPERATIONS } from './edit-structured';
import { CONVERT2STRUCTURED_MODES, MODIFY_TYPES } from './modify';

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown): boolean => typeof v === 'number' && Number.isInteger(v);

/** The problems of one edit_structured operation's params (`at` = its field path). */
function operationProblems(op: unknown, at: string, add: (field: string, message: string) => void): void {
  const o = isRecord(op) ? op : {};
  const type = String(o['type']);
  if (!EDIT_STRUCTURED_OPERATIONS.has(type)) {
    add(
      `${at}.type`,
      `unknown edit_structured operation "${type}" (one of ${[...EDIT_STRUCTURED_OPERATIONS].join(', ')})`,
    );
    return;
  }
  if (o['params'] !== undefined && !isRecord(o['params'])) {
    add(`${at}.params`, "an operation's params are an object");
    return;
  }
  const params = isRecord(o['params']) ? o['params'] : {};
  for (const [key, value] of Object.entries(params)) {
    // The parser fills {{placeholders}} in every value* param with a regex: anything but text fails.
    if (key.startsWith('value') && typeof value !== 'string') {
      add(
        `${at}.params.${key}`,
        `${key} is read as text with {{placeholders}} (a whole placeholder gives the block's value): PuppyEngine fails on any other value`,
      );
    }
    if (['path', 'path1', 'path2'].includes(key) && !Array.isArray(value)) {
      add(`${at}.params.${key}`, `${key} is a list of keys and indices`);
    }
  }
  if (type === 'insert' && params['index'] !== undefined && !isInt(params['index'])) {
    add(`${at}.params.index`, "insert's index is an integer");
  }
  if (
    (type === 'get_keys' || type === 'get_values') &&
    params['max_depth'] !== undefined &&
    !isInt(params['max_depth'])
  ) {
    add(`${at}.params.max_depth`, `${type}'s max_depth is an integer (-1: no limit)`);
  }
  if (type === 'sort' && params['reverse'] !== undefined && typeof params['reverse'] !== 'boolean') {
    add(`${at}.params.reverse`, "sort's reverse is a boolean");
  }
  if (
    type === 'set_operation' &&
    params['operation'] !== undefined &&
    !SET_OPERATIONS.has(String(params['operation']))
  ) {
    add(
      `${at}.params.operation`,
      `unknown set operation "${String(params['operation'])}" (one of ${[...SET_OPERATIONS].join(', ')})`,
    );
  }
  if (type === 'variable_replace') {
    const plugins = params['plugins'];
    if (
      plugins !== undefined &&
      (!isRecord(plugins) || Object.values(plugins).some((v) => typeof v !== 'string'))
    ) {
      add(`${at}.params.plugins`, "variable_replace's plugins map names to texts");
    }
  }
}

/**
 * What a modify edge is refused for at save: an unknown `modify_type`, a content that is not text
 * (PuppyEngine renders it with a regex), and the settings its strategies would fail on when run —
 * each naming the field.
 */
export function modifyProblems(edge: string, d: Json): GraphProblem[] {
  const problems: GraphProblem[] = [];
  const add = (field: string, message: string, code = GraphErrorCode.MissingParam) =>
    problems.push({ code, edge, field, message });
  const type = d['modify_type'];
  if (!MODIFY_TYPES.includes(type as (typeof MODIFY_TYPES)[number])) {
    add('data.modify_type', `unknown modify_type "${String(type)}" (one of ${MODIFY_TYPES.join(', ')})`);
  }
  if (d['content'] === undefined) {
    add('data.content', 'a modify edge needs its content');
  } else if (typeof d['content'] !== 'string') {
    add(
      'data.content',
      "a modify edge's content is text with {{placeholders}}: PuppyEngine fails on any other value",
    );
  }
  if (d['extra_configs'] !== undefined && !isRecord(d['extra_configs'])) {
    add('data.extra_configs', 'extra_configs is an object');
    return problems;
  }
  const extra = isRecord(d['extra_configs']) ? d['extra_configs'] : {};
  const at = (field: string) => `data.extra_configs.${field}`;
  switch (type) {
    case 'edit_structured': {
      const ops = extra['operations'];
      if (ops !== undefined && !Array.isArray(ops)) {
        add(at('operations'), 'operations is a list of {type, params}');
        break;
      }
      (ops ?? []).forEach((op: unknown, i: number) => operationProblems(op, at(`operations.${i}`), add));
      break;
    }
    case 'convert2structured': {
      const mode = extra['conversion_mode'];
      if (mode !== undefined && !CONVERT2STRUCTURED_MODES.has(String(mode))) {
        add(
          at('conversion_mode'),
          `unknown conversion_mode "${String(mode)}" (one of ${[...CONVERT2STRUCTURED_MODES].join(', ')})`,
        );
      }
      const size = extra['length_separator'];
      if (mode === 'split_by_length' && size !== undefined && !(isInt(size) && (size as number) > 0)) {
        add(at('length_separator'), 'length_separator is a positive integer');
      }
      const seps = extra['list_separator'];
      if (
        mode === 'split_by_character' &&
        seps !== undefined &&
        typeof seps !== 'string' &&
        !(Array.isArray(seps) && seps.every((s) => typeof s === 'string' && s !== ''))
      ) {
        add(at('list_separator'), 'list_separator is a list of non-empty texts');
      }
      break;
    }
    case 'edit_text': {
      const slice = extra['slice'];
      if (
        slice !== undefined &&
        !(Array.isArray(slice) && slice.length === 2 && slice.every((x) => x === null || isInt(x)))
      ) {
        add(at('slice'), 'slice is [start, end]: two integers (or null), an end of -1 meaning to the end');
      }
      break;
    }
    default:
      break;
  }
  return problems;
}
