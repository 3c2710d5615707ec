import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import type { JetStreamContext } from '@switchyard/jetstream';
import { type NodeInput, NodeHandler, NodeRuntime, asToolOutput, toolArgs } from '@switchyard/worker';
import { calculatorInputSchema, calculatorTool, evaluateExpression } from '../tools/calculator.tool';
import { httpGet, httpGetInputSchema, httpGetTool } from '../tools/http-get.tool';
import { httpRequest, httpRequestInputSchema, httpRequestTool } from '../tools/http-request.tool';
import { ToolExecutorConfig } from './tool-executor.config';

// Tools always hand their result to reflection.
const NEXT = ['reflection'];

@Controller()
export class ToolsController {
  constructor(
    @Inject(NodeRuntime) private readonly runtime: NodeRuntime,
    @Inject(ToolExecutorConfig) private readonly config: ToolExecutorConfig,
  ) {}

  @NodeHandler({
    name: calculatorTool.name,
    description: calculatorTool.description,
    tool: true,
    inputSchema: calculatorTool.inputJsonSchema,
    idempotent: calculatorTool.idempotent,
  })
  calculator(@Payload() data: unknown, @Ctx() ctx: JetStreamContext): Promise<void> {
    return this.runtime.execute(data, ctx, (input) =>
      asToolOutput(async () => {
        const { expression } = toolArgs(input.state, input.task, calculatorInputSchema);
        const value = evaluateExpression(expression);
        return {
          preparation: `Parsed the expression "${expression}".`,
          summary: `${expression} = ${value}`,
          result: { expression, value },
          relevance: 1,
          next: NEXT,
        };
      }),
    );
  }

  @NodeHandler({
    name: httpGetTool.name,
    description: httpGetTool.description,
    tool: true,
    inputSchema: httpGetTool.inputJsonSchema,
    idempotent: httpGetTool.idempotent,
  })
  httpGet(@Payload() data: unknown, @Ctx() ctx: JetStreamContext): Promise<void> {
    return this.runtime.execute(data, ctx, (input: NodeInput) =>
      asToolOutput(async () => {
        const args = toolArgs(input.state, input.task, httpGetInputSchema);
        const res = await httpGet(args, {
          signal: input.signal,
          allowHosts: this.config.allowHosts,
          timeoutMs: this.config.timeoutMs,
        });
        return {
          preparation: `Checked that ${new URL(args.url).hostname} resolves to public addresses only.`,
          summary: `GET ${res.final_url} → ${res.status}, ${res.bytes} bytes${res.truncated ? ' (truncated)' : ''}`,
          result: res,
          context: [{ type: 'text', content: res.body, important: false, usage_type: 'reference' }],
          next: NEXT,
        };
      }),
    );
  }
  @NodeHandler({
    name: httpRequestTool.name,
    description: httpRequestTool.description,
    tool: true,
    inputSchema: httpRequestTool.inputJsonSchema,
    idempotent: httpRequestTool.idempotent,
  })
  httpRequest(@Payload() data: unknown, @Ctx() ctx: JetStreamContext): Promise<void> {
    return this.runtime.execute(data, ctx, (input: NodeInput) =>
      asToolOutput(async () => {
        const args = toolArgs(input.state, input.task, httpRequestInputSchema);
        const res = await httpRequest(args, {
          signal: input.signal,
          allowHosts: this.config.allowHosts,
          timeoutMs: this.config.timeoutMs,
          // A redelivered task sends the same key: the receiver can drop the repeat.
          idempotencyKey: input.task.task_id,
        });
        return {
          preparation: `Checked that ${new URL(args.url).hostname} resolves to public addresses only.`,
          summary: `${res.method} ${res.final_url} → ${res.status}, ${res.bytes} bytes${res.truncated ? ' (truncated)' : ''}`,
          result: res,
          context: [{ type: 'text', content: res.body, important: false, usage_type: 'reference' }],
          next: NEXT,
        };
      }),
    );
  }
}
