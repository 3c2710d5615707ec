import type { RunErrorCodes } from '@switchyard/contracts';

/** Why a graph DSL was refused or a component could not run. */
export enum GraphErrorCode {
  /** The DSL is not a RAGFlow canvas (components form, graph-only form or template wrapper). */
  InvalidDsl = 'invalid_dsl',
  UnknownComponent = 'unknown_component',
  /** A RAGFlow component (or Agent tool) this runtime does not run yet: refused on save. */
  UnsupportedComponent = 'unsupported_component',
  DanglingReference = 'dangling_reference',
  Cycle = 'cycle',
  MissingParam = 'missing_param',
  /** A variable reference names a component or global that does not exist. */
  UnknownVariable = 'unknown_variable',
  /** A component raised while running (RAGFlow sets its `_ERROR` output). */
  ComponentFailed = 'component_failed',
}

/** The graph codes as run error codes: compiles only while every one is in the catalogue. */
export type GraphRunErrorCode = RunErrorCodes<`${GraphErrorCode}`>;

/** One problem found in a DSL: the component it concerns (if any) and the field. */
export interface GraphProblem {
  code: GraphErrorCode;
  component?: string;
  /** PuppyEngine workflows: the edge (computation) or block (data) the problem concerns. */
  edge?: string;
  block?: string;
  field?: string;
  message: string;
}

/** One line per problem: `component X, field Y: message`. */
export function describeProblems(problems: GraphProblem[]): string {
  return problems
    .map(
      (p) =>
        [
          p.component && `component ${p.component}`,
          p.edge && `edge ${p.edge}`,
          p.block && `block ${p.block}`,
          p.field && `field ${p.field}`,
        ]
          .filter(Boolean)
          .join(', ') + `: ${p.message}`,
    )
    .join('; ');
}

/**
 * A graph DSL or component error. Never retryable: the same DSL and inputs fail the same way.
 */
export class GraphException extends Error {
  readonly retryable = false;

  constructor(
    readonly code: GraphErrorCode,
    message: string,
    readonly problems: GraphProblem[] = [],
  ) {
    super(message);
    this.name = 'GraphException';
  }
}
