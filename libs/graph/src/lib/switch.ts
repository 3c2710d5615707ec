import { z } from 'zod';
import { PyFloat, pyCompare, pyEquals, pyFloat, pyStr, pyTruthy } from './py-value';
import { type VariableScope, getVariableValue } from './variable-ref';

/** The 12 operators of RAGFlow's Switch; the last four are Unicode symbols. */
export const SWITCH_OPERATORS = [
  'contains',
  'not contains',
  'start with',
  'end with',
  'empty',
  'not empty',
  '=',
  '≠',
  '>',
  '<',
  '≥',
  '≤',
] as const;
export type SwitchOperator = (typeof SWITCH_OPERATORS)[number];

export const SwitchParamsSchema = z
  .object({
    conditions: z
      .array(
        z
          .object({
            logical_operator: z.string().nullish(),
            items: z
              .array(
                z
                  .object({
                    cpn_id: z.string().nullish(),
                    operator: z.string().nullish(),
                    value: z.unknown(),
                  })
                  .passthrough(),
              )
              .default([]),
            to: z.array(z.string()).min(1, 'a condition needs at least one target'),
          })
          .passthrough(),
      )
      .min(1, 'a Switch needs at least one condition'),
    end_cpn_ids: z.array(z.string()).min(1, 'a Switch needs an ELSE target (end_cpn_ids)'),
  })
  .passthrough();
export type SwitchParams = z.infer<typeof SwitchParamsSchema>;

/** Python's `str()` coercion for the string operators (`None` → `""`). */
const text = (v: unknown): string => (v === null || v === undefined ? '' : pyStr(v));

/**
 * One Switch item: `input OP value`, after RAGFlow's number rule (a numeric left operand makes
 * the right one `float(value)` first, which throws for `""`). Throws as Python raises.
 */
export function compareSwitchItem(input: unknown, operator: string, rawValue: unknown): boolean {
  let value: unknown = rawValue ?? '';
  if (typeof input === 'number' || typeof input === 'boolean') {
    value = new PyFloat(pyFloat(value));
  }
  const op = operator as SwitchOperator;
  switch (op) {
    case 'contains':
      return text(input).toLowerCase().includes(text(value).toLowerCase());
    case 'not contains':
      return !text(input).toLowerCase().includes(text(value).toLowerCase());
    case 'start with':
      return text(input).toLowerCase().startsWith(text(value).toLowerCase());
    case 'end with':
      return text(input).toLowerCase().endsWith(text(value).toLowerCase());
    case 'empty':
      return !pyTruthy(input);
    case 'not empty':
      return pyTruthy(input);
    case '=':
      return pyEquals(input, value);
    case '≠':
      return !pyEquals(input, value);
    case '>':
    case '<':
    case '≥':
    case '≤': {
      let order: number;
      try {
        order = Math.sign(pyFloat(input) - pyFloat(value instanceof PyFloat ? value.value : value));
      } catch {
        order = pyCompare(input, value);
      }
      return op === '>' ? order > 0 : op === '<' ? order < 0 : op === '≥' ? order >= 0 : order <= 0;
    }
    default:
      throw new Error(`Not supported operator: ${operator}`);
  }
}

/** What a Switch decided: the targets (`_next`) and the left operands it read. */
export interface SwitchDecision {
  next: string[];
  /** The index of the condition that matched; -1 for the ELSE branch. */
  matched: number;
  inputs: Record<string, unknown>;
}

/**
 * RAGFlow's Switch: conditions in order, the first match wins (its whole `to`), else
 * `end_cpn_ids`. Items without `cpn_id` are skipped; anything but `"and"` is a short-circuit OR;
 * an AND condition with no evaluated item never matches.
 */
export function evaluateSwitch(scope: VariableScope, params: SwitchParams): SwitchDecision {
  const inputs: Record<string, unknown> = {};
  for (const [index, cond] of params.conditions.entries()) {
    const results: boolean[] = [];
    let matched = false;
    for (const item of cond.items) {
      if (!item.cpn_id) {
        continue;
      }
      const input = getVariableValue(scope, item.cpn_id);
      inputs[item.cpn_id] = input;
      results.push(compareSwitchItem(input, item.operator ?? '', item.value));
      if (cond.logical_operator !== 'and' && results.some(Boolean)) {
        matched = true;
        break;
      }
    }
    if (!matched && cond.logical_operator === 'and') {
      matched = results.length > 0 && results.every(Boolean);
    }
    if (matched) {
      return { next: cond.to, matched: index, inputs };
    }
  }
  return { next: params.end_cpn_ids, matched: -1, inputs };
}
