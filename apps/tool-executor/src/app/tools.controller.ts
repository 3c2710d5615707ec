import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import type { JetStreamContext } from '@switchyard/jetstream';
import {
  NodeHandler,
  NodeRuntime,
  type NodeSpec,
  type ToolDeclaration,
  ToolRunner,
  taskTenant,
  toolArgs,
} from '@switchyard/worker';
import { calculatorTool } from '../tools/calculator.tool';
import { extractDataTool } from '../tools/extract-data.tool';
import { httpGetTool } from '../tools/http-get.tool';
import { httpRequestTool } from '../tools/http-request.tool';
import { sqlQueryTool } from '../tools/sql/sql-query.tool';
import { CatalogueTools } from './catalogue-tools';

// Tools always hand their result to reflection.
const NEXT = ['reflection'];

const handler = (t: ToolDeclaration): NodeSpec => ({
  name: t.name,
  description: t.description,
  tool: true,
  inputSchema: t.inputJsonSchema,
  idempotent: t.idempotent,
});

/**
 * The built-in tools as nodes. Each runs through ToolRunner: its time budget, failures as
 * observations, and the output cap (a large result is shrunk in the action and kept whole by
 * reference). Their work is the catalogue's (CatalogueTools), shared with graph Agents' calls.
 */
@Controller()
export class ToolsController {
  constructor(
    @Inject(NodeRuntime) private readonly runtime: NodeRuntime,
    @Inject(ToolRunner) private readonly tools: ToolRunner,
    @Inject(CatalogueTools) private readonly catalogue: CatalogueTools,
  ) {}

  @NodeHandler(handler(calculatorTool))
  calculator(@Payload() data: unknown, @Ctx() ctx: JetStreamContext): Promise<void> {
    return this.execute(calculatorTool.name, data, ctx);
  }

  @NodeHandler(handler(httpGetTool))
  httpGet(@Payload() data: unknown, @Ctx() ctx: JetStreamContext): Promise<void> {
    return this.execute(httpGetTool.name, data, ctx);
  }

  @NodeHandler(handler(httpRequestTool))
  httpRequest(@Payload() data: unknown, @Ctx() ctx: JetStreamContext): Promise<void> {
    return this.execute(httpRequestTool.name, data, ctx);
  }

  @NodeHandler(handler(sqlQueryTool))
  sqlQuery(@Payload() data: unknown, @Ctx() ctx: JetStreamContext): Promise<void> {
    return this.execute(sqlQueryTool.name, data, ctx);
  }

  @NodeHandler(handler(extractDataTool))
  extractData(@Payload() data: unknown, @Ctx() ctx: JetStreamContext): Promise<void> {
    return this.execute(extractDataTool.name, data, ctx);
  }

  private execute(name: string, data: unknown, ctx: JetStreamContext): Promise<void> {
    const tool = this.catalogue.of(name);
    return this.runtime.execute(data, ctx, (input) =>
      this.tools.run(tool.decl, input, async (tc) => ({
        ...(await tool.run(toolArgs(input.state, input.task, tool.schema), {
          ...tc,
          runId: input.task.run_id,
          tenantId: taskTenant(input.task),
        })),
        next: NEXT,
      })),
    );
  }
}
