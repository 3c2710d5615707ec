import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { GRAPH_NODE_PREFIX } from '@switchyard/contracts';
import type { JetStreamContext } from '@switchyard/jetstream';
import { NodePrefixHandler, NodeRuntime, taskTenant } from '@switchyard/worker';
import { GraphCanvasLoader } from './graph-canvas.loader';
import { GraphComponentRunner } from './graph-component.runner';
import { PuppyWorkflowRunner } from './puppy/puppy-workflow.runner';

/** Every `graph.<component>` task of a graph agent's run (a RAGFlow canvas or a PuppyEngine workflow). */
@Controller()
export class GraphComponentsController {
  constructor(
    @Inject(NodeRuntime) private readonly runtime: NodeRuntime,
    @Inject(GraphComponentRunner) private readonly runner: GraphComponentRunner,
    @Inject(PuppyWorkflowRunner) private readonly puppy: PuppyWorkflowRunner,
    @Inject(GraphCanvasLoader) private readonly dsls: GraphCanvasLoader,
  ) {}

  @NodePrefixHandler(GRAPH_NODE_PREFIX)
  handle(@Payload() data: unknown, @Ctx() ctx: JetStreamContext): Promise<void> {
    return this.runtime.execute(data, ctx, async (input) =>
      (await this.dsls.kindOf(input.task.run_id, taskTenant(input.task))) === 'puppy'
        ? this.puppy.execute(input)
        : this.runner.execute(input),
    );
  }
}
