import { GraphErrorCode, GraphException } from './graph.exception';
import { pyJsonDumps, pyStr } from './py-value';
import { type VariableScope, getVariableValue } from './variable-ref';

// RAGFlow `agent/tools/code_exec.py`: the script's `main` gets the resolved `arguments`, and its
// return value is checked against the one "business" output declared in `outputs`, then written
// there, with `raw_result`, `actual_type` and `content` (the value as text) beside it.

/** Outputs RAGFlow sets itself; a script's declared output may not use these names. */
export const CODE_EXEC_SYSTEM_OUTPUTS = new Set([
  'content',
  'actual_type',
  'attachments',
  '_ERROR',
  '_ARTIFACTS',
  '_ATTACHMENT_CONTENT',
  'raw_result',
  '_created_time',
  '_elapsed_time',
]);

export interface CodeExecParams {
  language: 'python' | 'javascript';
  script: string;
  arguments: Record<string, string>;
  outputs: Record<string, unknown>;
}

const fail = (message: string) => new GraphException(GraphErrorCode.ComponentFailed, message);

/** The component's params as RAGFlow reads them (`lang` python/python3/javascript/nodejs). */
export function codeExecParams(params: Record<string, unknown>): CodeExecParams {
  const lang = String(params['lang'] ?? 'python').toLowerCase();
  const language =
    lang === 'python' || lang === 'python3'
      ? 'python'
      : lang === 'javascript' || lang === 'nodejs'
        ? 'javascript'
        : undefined;
  if (!language) {
    throw fail(`Unsupported language: ${lang} (one of python, python3, javascript, nodejs)`);
  }
  const script = params['script'];
  if (typeof script !== 'string' || !script.trim()) {
    throw fail('Script is empty');
  }
  const args = params['arguments'] ?? {};
  if (typeof args !== 'object' || Array.isArray(args)) {
    throw fail('arguments must map argument names to variable references');
  }
  const outputs = params['outputs'];
  return {
    language,
    script,
    arguments: Object.fromEntries(Object.entries(args).map(([k, v]) => [k, typeof v === 'string' ? v : ''])),
    outputs:
      outputs && typeof outputs === 'object' && !Array.isArray(outputs)
        ? (outputs as Record<string, unknown>)
        : { result: { value: '', type: 'object' }, attachments: { value: [], type: 'Array<String>' } },
  };
}

/** `main`'s arguments: each reference resolved; an empty one is None. */
export function codeExecArguments(scope: VariableScope, params: CodeExecParams): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(params.arguments).map(([name, ref]) => [name, ref ? getVariableValue(scope, ref) : null]),
  );
}

const isNumber = (v: unknown): v is number => typeof v === 'number';
const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** RAGFlow `infer_actual_type`. */
export function inferActualType(value: unknown): string {
  if (value === null || value === undefined) {
    return 'Null';
  }
  if (typeof value === 'boolean') {
    return 'Boolean';
  }
  if (isNumber(value)) {
    return 'Number';
  }
  if (typeof value === 'string') {
    return 'String';
  }
  if (Array.isArray(value)) {
    const inner = new Set(value.map(inferActualType));
    return inner.size === 1 ? `Array<${[...inner][0]}>` : 'Array<Any>';
  }
  return isObject(value) ? 'Object' : 'Any';
}

/** Python `json.dumps(v, ensure_ascii=False, indent=2, sort_keys=True)`. */
function jsonDumpsIndented(value: unknown, indent = ''): string {
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    return value.length
      ? `[\n${value.map((v) => inner + jsonDumpsIndented(v, inner)).join(',\n')}\n${indent}]`
      : '[]';
  }
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return keys.length
      ? `{\n${keys.map((k) => `${inner}${JSON.stringify(k)}: ${jsonDumpsIndented(value[k], inner)}`).join(',\n')}\n${indent}}`
      : '{}';
  }
  return pyJsonDumps(value);
}

/** RAGFlow `render_canonical_content`: the value as text (JSON for dicts and lists). */
export function renderCanonicalContent(value: unknown): string {
  if (value === null || value === undefined) {
    return '';
  }
  if (typeof value === 'string') {
    return value;
  }
  return Array.isArray(value) || isObject(value) ? jsonDumpsIndented(value) : pyStr(value);
}

function normalizeType(expected: string): string {
  const t = expected.trim();
  const simple: Record<string, string> = {
    string: 'String',
    number: 'Number',
    boolean: 'Boolean',
    object: 'Object',
    null: 'Null',
    any: 'Any',
  };
  const low = t.toLowerCase();
  if (simple[low]) {
    return simple[low];
  }
  if (low.startsWith('array<') && low.endsWith('>')) {
    const inner = t.slice(t.indexOf('<') + 1, -1).trim();
    if (!inner) {
      throw fail(`Unsupported expected type: ${expected}`);
    }
    return `Array<${normalizeType(inner)}>`;
  }
  return t;
}

function checkType(expected: string, value: unknown, path = ''): void {
  const type = normalizeType(expected);
  if (!type || type.toLowerCase() === 'any') {
    return;
  }
  const mismatch = () =>
    fail(
      `CodeExec contract mismatch at ${path || 'value'}: expected type ${type}, got ${inferActualType(value)}`,
    );
  if (type.startsWith('Array<') && type.endsWith('>')) {
    if (!Array.isArray(value)) {
      throw mismatch();
    }
    value.forEach((item, i) => checkType(type.slice(6, -1).trim(), item, path ? `${path}[${i}]` : `[${i}]`));
    return;
  }
  const valid: Record<string, (v: unknown) => boolean> = {
    String: (v) => typeof v === 'string',
    Number: isNumber,
    Boolean: (v) => typeof v === 'boolean',
    Object: isObject,
    Null: (v) => v === null,
  };
  if (!valid[type]) {
    throw fail(`Unsupported expected type: ${expected}`);
  }
  if (!valid[type](value)) {
    throw mismatch();
  }
}

function businessOutput(outputs: Record<string, unknown>): [string, unknown] {
  const entries = Object.entries(outputs);
  const business = entries.length === 1 ? entries : entries.filter(([n]) => !CODE_EXEC_SYSTEM_OUTPUTS.has(n));
  if (business.length !== 1) {
    throw fail(`CodeExec contract must contain exactly one business output, got ${business.length}`);
  }
  const [name] = business[0];
  if (!name.trim()) {
    throw fail('CodeExec business output name must not be empty');
  }
  if (CODE_EXEC_SYSTEM_OUTPUTS.has(name)) {
    throw fail(`CodeExec reserved output name is not allowed: ${name}`);
  }
  if (name.includes('.')) {
    throw fail(`CodeExec business output name must not contain '.': ${name}`);
  }
  return business[0];
}

/**
 * The component's outputs for what `main` returned (RAGFlow `_process_execution_result` without
 * artifacts); a value that breaks the declared contract is the component's error.
 */
export function codeExecOutputs(params: CodeExecParams, value: unknown): Record<string, unknown> {
  const [name, meta] = businessOutput(params.outputs);
  const expected = isObject(meta) && meta['type'] ? String(meta['type']) : '';
  checkType(expected, value);
  return {
    raw_result: value,
    actual_type: inferActualType(value),
    [name]: value,
    _ERROR: '',
    _ARTIFACTS: null,
    _ATTACHMENT_CONTENT: '',
    attachments: [],
    content: renderCanonicalContent(value),
  };
}
