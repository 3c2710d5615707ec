import type { ComponentContext, ComponentEffect } from '@switchyard/graph';

/**
 * One component implementation of the planner, registered under the RAGFlow component names it
 * runs (the contract between the dispatcher, GraphComponents, and components/*). The class's
 * facts (params, timeout, exception handling) are its descriptor in libs/graph COMPONENTS.
 */
export interface ComponentRunner {
  readonly names: readonly string[];
  run(ctx: ComponentContext): Promise<ComponentEffect>;
}

/** Nest multi-provider token: every component runner the planner's GraphModule provides. */
export const GRAPH_COMPONENT_RUNNERS = Symbol('GRAPH_COMPONENT_RUNNERS');
