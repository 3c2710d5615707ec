import { z } from 'zod';
import { GraphErrorCode, GraphException } from '../graph.exception';
import { pyEquals, pyTruthy } from '../py-value';

/** PuppyEngine's ifelse conditions (`ConditionEvaluator`). */
export const IFELSE_CONDITIONS = [
  'is_empty',
  'is_not_empty',
  'contain',
  'not_contain',
  'greater_than_n_chars',
  'less_than_n_chars',
  'is',
  'is_not',
  'is_list',
  'is_dict',
  'greater_than_n',
  'less_than_n',
] as const;
export type IfElseCondition = (typeof IFELSE_CONDITIONS)[number];

export const IfElseConditionSchema = z
  .object({
    block: z.string().min(1),
    condition: z.enum(IFELSE_CONDITIONS),
    parameters: z.record(z.string(), z.unknown()).nullish(),
    operation: z.string(),
  })
  .passthrough();
export const IfElseCaseSchema = z
  .object({
    conditions: z.array(IfElseConditionSchema).min(1),
    // The engine reads `thens` only: a case that says `then` (the legacy key) applies nothing.
    thens: z.array(z.object({ from: z.string().min(1), to: z.string().min(1) }).passthrough()),
  })
  .passthrough();
export const IfElseParamsSchema = z.object({ cases: z.record(z.string(), IfElseCaseSchema) }).passthrough();
export type IfElseParams = z.infer<typeof IfElseParamsSchema>;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

// Python `value in content`: a substring of a string, an item of a list, a key or value of a dict.
function contains(content: unknown, value: unknown): boolean {
  if (value === null || value === undefined) {
    return false;
  }
  if (isRecord(content)) {
    return (
      Object.keys(content).some((k) => pyEquals(k, value)) ||
      Object.values(content).some((v) => pyEquals(v, value))
    );
  }
  if (typeof content === 'string') {
    if (typeof value !== 'string') {
      throw new GraphException(
        GraphErrorCode.ComponentFailed,
        "'in <string>' requires string as left operand",
      );
    }
    return content.includes(value);
  }
  if (Array.isArray(content)) {
    return content.some((x) => pyEquals(x, value));
  }
  throw new GraphException(
    GraphErrorCode.ComponentFailed,
    'contain needs a text, a list or an object to look in',
  );
}

const sizeOf = (content: unknown): number | undefined =>
  Array.isArray(content) ? content.length : isRecord(content) ? Object.keys(content).length : undefined;

/** One condition on one block's content (PuppyEngine's `ConditionEvaluator.evaluate`). */
export function evaluateCondition(
  condition: IfElseCondition,
  content: unknown,
  parameters: Record<string, unknown> = {},
): boolean {
  const value = parameters['value'];
  const n = typeof value === 'number' ? value : Number(value ?? 0);
  switch (condition) {
    case 'is_empty':
      return !pyTruthy(content);
    case 'is_not_empty':
      return pyTruthy(content);
    case 'contain':
      return contains(content, value);
    case 'not_contain':
      return !contains(content, value);
    case 'greater_than_n_chars':
      return typeof content === 'string' && [...content].length > n;
    case 'less_than_n_chars':
      return typeof content === 'string' && [...content].length < n;
    case 'is':
      return pyEquals(content, value);
    case 'is_not':
      return !pyEquals(content, value);
    case 'is_list':
      return Array.isArray(content);
    case 'is_dict':
      return isRecord(content);
    case 'greater_than_n': {
      const size = sizeOf(content);
      return size !== undefined && size > n;
    }
    case 'less_than_n': {
      const size = sizeOf(content);
      return size !== undefined && size < n;
    }
  }
}

/**
 * Where a case's operations are wrong (PuppyEngine's `evaluate_with_operations`): every condition
 * but the last joins the next with `and`/`or`, the last one carries `/`. Undefined when fine.
 */
export function operationProblem(
  operations: readonly string[],
): { index: number; message: string } | undefined {
  if (operations.length === 0) {
    return { index: 0, message: 'Evaluations and operations must not be empty.' };
  }
  for (const [i, op] of operations.entries()) {
    const last = i === operations.length - 1;
    if (!last && op === '/') {
      return { index: i, message: 'None operation not supported in between conditions' };
    }
    if (!last && op !== 'and' && op !== 'or') {
      return { index: i, message: `Unsupported operation: ${op}` };
    }
    if (last && op !== '/') {
      return { index: i, message: 'AND, OR only supported in between conditions, use `/` instead' };
    }
  }
  return undefined;
}

/** Combines a case's results left to right, each condition's operation joining it to the next. */
export function combineConditions(results: readonly boolean[], operations: readonly string[]): boolean {
  const wrong = operationProblem(operations);
  if (wrong || results.length !== operations.length) {
    throw new GraphException(
      GraphErrorCode.ComponentFailed,
      wrong?.message ?? 'Mismatch between evaluations and operations length.',
    );
  }
  let result = results[0];
  for (let i = 0; i < operations.length - 1; i++) {
    result = operations[i] === 'and' ? result && results[i + 1] : result || results[i + 1];
  }
  return result;
}

/**
 * Runs an ifelse edge (PuppyEngine's `ConditionerFactory.execute`): **every** case whose conditions
 * hold applies its `thens`, `result[to] = content[from]`, later cases overwriting earlier ones. The
 * result names only the blocks written.
 */
export function evaluateIfElse(
  params: IfElseParams,
  contents: Record<string, unknown>,
): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const c of Object.values(params.cases)) {
    const results = c.conditions.map((cond) =>
      evaluateCondition(cond.condition, contents[cond.block], cond.parameters ?? {}),
    );
    if (
      combineConditions(
        results,
        c.conditions.map((cond) => cond.operation),
      )
    ) {
      for (const then of c.thens) {
        result[then.to] = contents[then.from] ?? null;
      }
    }
  }
  return result;
}
