import { pyJsonDumps, pyStr, pyTruthy } from './py-value';
import {
  type VariableScope,
  getVariableValue,
  isWholeRef,
  renderTemplate,
  resolveParam,
  setVariableValue,
} from './variable-ref';

// Pure parts of RAGFlow's data components: each takes the variable scope and the component's
// params and returns outputs (and, for VariableAssigner, the new variables).

/** `get_value_with_variable`: a template whose values are JSON unless they are strings. */
export const templateText = (v: unknown): string =>
  v === null || v === undefined ? '' : typeof v === 'string' ? v : pyJsonDumps(v);

/** StringTransform `split`: the `split_ref` string cut on any delimiter (delimiters dropped). */
export function stringSplit(scope: VariableScope, params: Record<string, unknown>): string[] {
  const value = getVariableValue(scope, String(params['split_ref'] ?? '')) || '';
  if (typeof value !== 'string') {
    throw new Error(`The input variable is not a string: ${typeof value}`);
  }
  const delimiters = (params['delimiters'] as string[] | undefined) ?? [','];
  const pattern = new RegExp(delimiters.map((d) => d.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 's');
  return value.split(pattern);
}

/** StringTransform `merge`: the script with references spliced in, lists joined with `delimiters[0]`. */
export function stringMerge(scope: VariableScope, params: Record<string, unknown>): string {
  const delimiters = (params['delimiters'] as string[] | undefined) ?? [','];
  return renderTemplate(
    scope,
    String(params['script'] ?? ''),
    (v) => (Array.isArray(v) ? v.map(pyStr).join(delimiters[0] ?? ',') : templateText(v)),
    false,
  );
}

/** VariableAggregator: per group, the first selector value that is truthy (else unset). */
export function aggregateVariables(
  scope: VariableScope,
  params: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const groups =
    (params['groups'] as { group_name: string; variables?: { value?: string }[] }[] | undefined) ?? [];
  for (const group of groups) {
    for (const selector of group.variables ?? []) {
      if (!selector.value) {
        continue;
      }
      const value = getVariableValue(scope, selector.value);
      if (pyTruthy(value)) {
        out[group.group_name] = value;
        break;
      }
    }
  }
  return out;
}

const isNumber = (v: unknown): v is number => typeof v === 'number';

function applyOperator(
  scope: VariableScope,
  current: unknown,
  operator: string,
  parameter: unknown,
): unknown {
  switch (operator) {
    case 'overwrite':
      return resolveParam(scope, parameter);
    case 'set':
      return current === null || current === undefined || typeof current === 'string'
        ? renderTemplate(scope, String(parameter ?? ''), templateText)
        : parameter;
    case 'clear':
      return Array.isArray(current)
        ? []
        : typeof current === 'object' && current !== null
          ? {}
          : typeof current === 'number'
            ? 0
            : typeof current === 'boolean'
              ? false
              : '';
    case 'append':
    case 'extend': {
      if (!Array.isArray(current)) {
        return 'ERROR:VARIABLE_NOT_LIST';
      }
      if (!isWholeRef(scope, parameter)) {
        throw new Error(`${operator} takes a reference, not a literal`);
      }
      const value = getVariableValue(scope, parameter);
      if (operator === 'append') {
        return [...current, value];
      }
      return Array.isArray(value) ? [...current, ...(value as unknown[])] : 'ERROR:PARAMETER_NOT_LIST';
    }
    case 'remove_first':
      return Array.isArray(current) ? current.slice(1) : 'ERROR:VARIABLE_NOT_LIST';
    case 'remove_last':
      return Array.isArray(current) ? current.slice(0, -1) : 'ERROR:VARIABLE_NOT_LIST';
    case '+=':
    case '-=':
    case '*=':
    case '/=': {
      const operand = resolveParam(scope, parameter);
      if (!isNumber(current) || !isNumber(operand)) {
        return 'ERROR:VARIABLE_NOT_NUMBER or PARAMETER_NOT_NUMBER';
      }
      if (operator === '/=' && operand === 0) {
        return 'ERROR:DIVIDE_BY_ZERO';
      }
      return operator === '+='
        ? current + operand
        : operator === '-='
          ? current - operand
          : operator === '*='
            ? current * operand
            : current / operand;
    }
    default:
      throw new Error(`Unsupported operator: ${operator}`);
  }
}

/** VariableAssigner: each entry applied in order; operator errors are values, as in RAGFlow. */
export function assignVariables(
  scope: VariableScope,
  params: Record<string, unknown>,
): Pick<VariableScope, 'globals' | 'outputs'> {
  let state: Pick<VariableScope, 'globals' | 'outputs'> = { globals: scope.globals, outputs: scope.outputs };
  const entries =
    (params['variables'] as { variable?: string; operator?: string; parameter?: unknown }[] | undefined) ??
    [];
  for (const e of entries) {
    const noParameter =
      e.operator === 'clear' || e.operator === 'remove_first' || e.operator === 'remove_last';
    if (!e.variable || !e.operator || (!noParameter && (e.parameter === null || e.parameter === undefined))) {
      throw new Error('Variable is not complete.');
    }
    const current = { ...scope, ...state };
    const value = applyOperator(current, getVariableValue(current, e.variable), e.operator, e.parameter);
    state = setVariableValue(current, e.variable, value);
  }
  return state;
}

/** One field of a UserFillUp form. */
interface FormField {
  name?: string;
  type?: string;
  optional?: boolean;
}

/** The JSON Schema of a UserFillUp's answer: each field raw, or as `{value}` (RAGFlow's form). */
export function userFillUpInputSchema(params: Record<string, unknown>): Record<string, unknown> {
  const fields = (params['inputs'] as Record<string, FormField> | undefined) ?? {};
  return {
    type: 'object',
    // `x-ragflow-field` keeps RAGFlow's field definition for its `user_inputs` event.
    properties: Object.fromEntries(
      Object.entries(fields).map(([k, f]) => [k, { description: f.name ?? k, 'x-ragflow-field': f }]),
    ),
    required: Object.entries(fields)
      .filter(([, f]) => !f.optional)
      .map(([k]) => k),
  };
}

/** The tips shown with the form: references rendered, lists joined with `,`. */
export function userFillUpTips(scope: VariableScope, params: Record<string, unknown>): string {
  return renderTemplate(scope, String(params['tips'] ?? ''), (v) =>
    Array.isArray(v) ? v.map(pyStr).join(',') : templateText(v),
  );
}

/**
 * Begin's outputs: the run's inputs (each `value` taken out of RAGFlow's `{value}` form); with
 * none given and a single form field, the query fills it.
 */
export function beginOutputs(
  params: Record<string, unknown>,
  inputs: Record<string, unknown> | undefined,
  query: string,
): Record<string, unknown> {
  if (inputs && Object.keys(inputs).length) {
    return Object.fromEntries(
      Object.entries(inputs).map(([k, v]) => [
        k,
        v && typeof v === 'object' && !Array.isArray(v) && 'value' in v ? (v as { value: unknown }).value : v,
      ]),
    );
  }
  const fields = Object.keys((params['inputs'] as Record<string, unknown> | undefined) ?? {});
  return fields.length === 1 ? { [fields[0]]: query } : {};
}

/** The form's outputs from an answer (RAGFlow `_resolve_input_value`: `.value`, JSON for objects). */
export function userFillUpOutputs(
  params: Record<string, unknown>,
  answer: Record<string, unknown>,
): Record<string, unknown> {
  const fields = (params['inputs'] as Record<string, FormField> | undefined) ?? {};
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(fields)) {
    let value = answer[key];
    if (value && typeof value === 'object' && !Array.isArray(value) && 'value' in value) {
      value = (value as { value: unknown }).value;
    }
    if (field.type === 'object' && typeof value === 'string') {
      try {
        value = JSON.parse(value);
      } catch {
        // RAGFlow keeps the text when it is not JSON.
      }
    }
    out[key] = value ?? null;
  }
  return out;
}
