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
