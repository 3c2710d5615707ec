import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { MCP_NODE_PREFIX } from '@switchyard/contracts';
import type { JetStreamContext } from '@switchyard/jetstream';
import { NodePrefixHandler, NodeRuntime, asToolOutput } from '@switchyard/worker';
import { McpManager } from './mcp-manager';

/** Every `mcp.<server>.<tool>` task: the nodes are registered at runtime by McpManager. */
@Controller()
export class McpToolsController {
  constructor(
    @Inject(NodeRuntime) private readonly runtime: NodeRuntime,
    @Inject(McpManager) private readonly manager: McpManager,
  ) {}

  @NodePrefixHandler(MCP_NODE_PREFIX)
  handle(@Payload() data: unknown, @Ctx() ctx: JetStreamContext): Promise<void> {
    return this.runtime.execute(data, ctx, (input) =>
      asToolOutput(() => this.manager.call(input), input.task.node, input.lastDelivery),
    );
  }
}
