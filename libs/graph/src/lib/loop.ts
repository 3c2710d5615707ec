import { pyEquals, pyTruthy } from './py-value';
import { type VariableScope, getVariableValue, resolveParam } from './variable-ref';

interface LoopVariable {
  variable?: string;
  input_mode?: string;
  type?: string;
  value?: unknown;
}

/** RAGFlow's Loop: its `loop_variables` become its outputs; an incomplete entry raises. */
export function loopVariables(
  scope: VariableScope,
  params: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const v of (params['loop_variables'] as LoopVariable[] | undefined) ?? []) {
    if (!v.variable || !v.input_mode || !v.type) {
      throw new Error('Loop Variable is not complete.');
    }
    if (v.input_mode === 'variable') {
      if (!v.value) {
        throw new Error(`Loop Variable ${v.variable} needs a reference`);
      }
      out[v.variable] = getVariableValue(scope, String(v.value));
    } else {
      if (v.value === null || v.value === undefined) {
        throw new Error(`Loop Variable ${v.variable} needs a value`);
      }
      out[v.variable] = v.value;
    }
  }
  return out;
}

/** One termination condition of a LoopItem, with RAGFlow's per-type operator table. */
export function loopConditionHolds(left: unknown, operator: string, right: unknown): boolean {
  if (left === null || left === undefined) {
    return operator === 'empty';
  }
  if (typeof left === 'boolean') {
    return operator === 'is' ? left === right : operator === 'is not' ? left !== right : false;
  }
  if (typeof left === 'number') {
    if (typeof right !== 'number') {
      return false;
    }
    switch (operator) {
      case '=':
        return left === right;
      case '≠':
        return left !== right;
      case '>':
        return left > right;
      case '<':
        return left < right;
      case '≥':
        return left >= right;
      case '≤':
        return left <= right;
      default:
        return false;
    }
  }
  if (typeof left === 'string') {
    const r = String(right ?? '');
    switch (operator) {
      case 'contains':
        return left.includes(r);
      case 'not contains':
        return !left.includes(r);
      case 'start with':
        return left.startsWith(r);
      case 'end with':
        return left.endsWith(r);
      case 'is':
        return left === r;
      case 'is not':
        return left !== r;
      case 'empty':
        return left === '';
      case 'not empty':
        return left !== '';
      default:
        return false;
    }
  }
  if (Array.isArray(left)) {
    switch (operator) {
      case 'contains':
        return left.some((x) => pyEquals(x, right));
      case 'not contains':
        return !left.some((x) => pyEquals(x, right));
      case 'is':
        return pyEquals(left, right);
      case 'is not':
        return !pyEquals(left, right);
      case 'empty':
        return left.length === 0;
      case 'not empty':
        return left.length > 0;
      default:
        return false;
    }
  }
  return operator === 'empty' ? !pyTruthy(left) : operator === 'not empty' ? pyTruthy(left) : false;
}

/**
 * Whether a LoopItem's loop is over before visit `visit` (0-based): the maximum count reached,
 * or the termination conditions hold (checked before each turn, so a loop may run 0 turns; an
 * empty AND list ends it at once).
 */
export function loopEnded(scope: VariableScope, params: Record<string, unknown>, visit: number): boolean {
  const max = Number(params['maximum_loop_count'] ?? 0);
  if (max > 0 && visit >= max) {
    return true;
  }
  const conditions =
    (params['loop_termination_condition'] as
      { variable?: string; operator?: string; value?: unknown; input_mode?: string }[] | undefined) ?? [];
  const results = conditions.map((c) =>
    loopConditionHolds(
      c.variable ? getVariableValue(scope, c.variable) : null,
      c.operator ?? '',
      c.input_mode === 'variable' ? resolveParam(scope, c.value) : c.value,
    ),
  );
  return params['logical_operator'] === 'or' ? results.some(Boolean) : results.every(Boolean);
}
