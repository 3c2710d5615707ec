import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { MCP_NODE_PREFIX } from '@switchyard/contracts';
import type { JetStreamContext } from '@switchyard/jetstream';
import { NodePrefixHandler, NodeRuntime, ToolReceipts, asToolOutput, taskTenant } from '@switchyard/worker';
import { McpManager } from './mcp-manager';

/** Every `mcp.<server>.<tool>` task: the nodes are registered at runtime by McpManager. */
@Controller()
export class McpToolsController {
  constructor(
    @Inject(NodeRuntime) private readonly runtime: NodeRuntime,
    @Inject(McpManager) private readonly manager: McpManager,
    @Inject(ToolReceipts) private readonly receipts: ToolReceipts,
  ) {}

  @NodePrefixHandler(MCP_NODE_PREFIX)
  handle(@Payload() data: unknown, @Ctx() ctx: JetStreamContext): Promise<void> {
    return this.runtime.execute(data, ctx, (input) => {
      // Outside asToolOutput: a task naming no tenant fails the run, it is no tool error to reflect on.
      const tenantId = taskTenant(input.task);
      const call = () =>
        asToolOutput(() => this.manager.call(input, tenantId), input.task.node, input.lastDelivery);
      // A tool without a read-only or idempotent hint acts at most once per task.
      return this.manager.isIdempotent(input.task.node)
        ? call()
        : this.receipts.once(input, input.task.node, call);
    });
  }
}
