import { Inject, Injectable } from '@nestjs/common';
import {
  type ComponentContext,
  type ComponentEffect,
  GraphErrorCode,
  GraphException,
  pureComponent,
} from '@switchyard/graph';
import { type ComponentRunner, GRAPH_COMPONENT_RUNNERS } from './component-runner';

/**
 * Runs one component by its RAGFlow name: a pure one (libs/graph COMPONENTS' `pure` runner, the
 * code the orchestrator runs inline) first, else the runner registered under that name in the
 * GraphModule (GRAPH_COMPONENT_RUNNERS).
 */
@Injectable()
export class GraphComponents {
  private readonly runners = new Map<string, ComponentRunner>();

  constructor(@Inject(GRAPH_COMPONENT_RUNNERS) runners: readonly ComponentRunner[]) {
    for (const runner of runners) {
      for (const name of runner.names) {
        const other = this.runners.get(name);
        if (other) {
          throw new Error(`${runner.constructor.name} and ${other.constructor.name} both run ${name}`);
        }
        this.runners.set(name, runner);
      }
    }
  }

  /** Whether a component of that name can run here. */
  has(name: string): boolean {
    return pureComponent(name) !== undefined || this.runners.has(name);
  }

  async run(ctx: ComponentContext): Promise<ComponentEffect> {
    const pure = pureComponent(ctx.component.name);
    if (pure) {
      return pure(ctx);
    }
    const runner = this.runners.get(ctx.component.name);
    if (!runner) {
      throw new GraphException(
        GraphErrorCode.ComponentFailed,
        // validate-canvas refuses an unknown component on save: only a pinned canvas saved by
        // another release could name one.
        `the ${ctx.component.name} component cannot run here`,
      );
    }
    return runner.run(ctx);
  }
}
