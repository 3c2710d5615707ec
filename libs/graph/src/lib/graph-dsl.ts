import type { Canvas } from './dsl.schema';
import { isPuppyWorkflow, validateWorkflow } from './puppy/parse-workflow';
import type { PuppyWorkflow } from './puppy/workflow.schema';
import { validateCanvas } from './validate-canvas';

/** A graph agent's DSL, by kind: a RAGFlow canvas, or a PuppyEngine workflow (engine JSON). */
export type GraphDsl = { kind: 'ragflow'; canvas: Canvas } | { kind: 'puppy'; workflow: PuppyWorkflow };

/**
 * Reads and validates a graph agent's DSL of either kind: PuppyEngine engine JSON (`blocks` and
 * `edges` objects) or a PuppyFlow editor workflow/template (lists, converted to engine JSON) is a
 * PuppyEngine workflow; anything else is read as a RAGFlow canvas. Throws a GraphException listing
 * every problem.
 */
export function validateGraphDsl(raw: unknown): GraphDsl {
  return isPuppyWorkflow(raw)
    ? { kind: 'puppy', workflow: validateWorkflow(raw) }
    : { kind: 'ragflow', canvas: validateCanvas(raw) };
}

/**
 * The DSL a graph agent pinned, validated. It is stored as JSON text, which keeps the author's key
 * order (see AgentConfigSchema); an object (older agents) is taken as it is. Throws on bad JSON or
 * a DSL that does not validate.
 */
export function pinnedGraphDsl(dsl: unknown): GraphDsl {
  return validateGraphDsl(typeof dsl === 'string' ? (JSON.parse(dsl) as unknown) : dsl);
}

/**
 * A run's inputs of Begin's form, from its `input`: the JSON text `inputs_json` keeps their key
 * order (jsonb sorts keys); older runs have only `inputs`. Undefined unless an object.
 */
export function runInputsOf(row: {
  inputs: unknown;
  inputs_json: string | null;
}): Record<string, unknown> | undefined {
  const inputs = row.inputs_json ? (JSON.parse(row.inputs_json) as unknown) : row.inputs;
  return inputs && typeof inputs === 'object' && !Array.isArray(inputs)
    ? (inputs as Record<string, unknown>)
    : undefined;
}
