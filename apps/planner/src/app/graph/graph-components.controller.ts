import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { GRAPH_NODE_PREFIX } from '@switchyard/contracts';
import type { JetStreamContext } from '@switchyard/jetstream';
import { NodePrefixHandler, NodeRuntime } from '@switchyard/worker';
import { GraphComponentRunner } from './graph-component.runner';

/** Every `graph.<component>` task of a graph agent's run. */
@Controller()
export class GraphComponentsController {
  constructor(
    @Inject(NodeRuntime) private readonly runtime: NodeRuntime,
    @Inject(GraphComponentRunner) private readonly runner: GraphComponentRunner,
  ) {}

  @NodePrefixHandler(GRAPH_NODE_PREFIX)
  handle(@Payload() data: unknown, @Ctx() ctx: JetStreamContext): Promise<void> {
    return this.runtime.execute(data, ctx, (input) => this.runner.execute(input));
  }
}
