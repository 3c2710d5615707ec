import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import type { JetStreamContext } from '@switchyard/jetstream';
import { type NodeInput, NodeHandler, NodeRuntime, toolArgs } from '@switchyard/worker';
import { calculatorInputSchema, calculatorTool, evaluateExpression } from '../tools/calculator.tool';
import { httpGet, httpGetInputSchema, httpGetTool } from '../tools/http-get.tool';
import { httpRequest, httpRequestInputSchema, httpRequestTool } from '../tools/http-request.tool';
import { SqlDataSources, sqlQuery } from '@switchyard/sql-sources';
import { sqlQueryInputSchema, sqlQueryTool } from '../tools/sql/sql-query.tool';
import { ToolRunner } from '@switchyard/worker';
import { ToolExecutorConfig } from './tool-executor.config';

// Tools always hand their result to reflection.
const NEXT = ['reflection'];

/**
 * The built-in tools. Each runs through ToolRunner: its time budget, failures as observations,
 * and the output cap (a large result is shrunk in the action and kept whole by reference).
 */
@Controller()
export class ToolsController {
  constructor(
    @Inject(NodeRuntime) private readonly runtime: NodeRuntime,
    @Inject(ToolExecutorConfig) private readonly config: ToolExecutorConfig,
    @Inject(ToolRunner) private readonly tools: ToolRunner,
    @Inject(SqlDataSources) private readonly dataSources: SqlDataSources,
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
      this.tools.run(calculatorTool, input, async () => {
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
      this.tools.run(httpGetTool, input, async ({ signal, timeoutMs }) => {
        const args = toolArgs(input.state, input.task, httpGetInputSchema);
        const res = await httpGet(args, {
          signal,
          allowHosts: this.config.allowHosts,
          lookup: this.config.lookup,
          timeoutMs: Math.min(this.config.timeoutMs, timeoutMs),
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
      this.tools.run(httpRequestTool, input, async ({ signal, timeoutMs, idempotencyKey }) => {
        const args = toolArgs(input.state, input.task, httpRequestInputSchema);
        const res = await httpRequest(args, {
          signal,
          allowHosts: this.config.allowHosts,
          lookup: this.config.lookup,
          timeoutMs: Math.min(this.config.timeoutMs, timeoutMs),
          // A redelivered task sends the same key: the receiver can drop the repeat.
          idempotencyKey,
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

  @NodeHandler({
    name: sqlQueryTool.name,
    description: sqlQueryTool.description,
    tool: true,
    inputSchema: sqlQueryTool.inputJsonSchema,
    idempotent: sqlQueryTool.idempotent,
  })
  sqlQuery(@Payload() data: unknown, @Ctx() ctx: JetStreamContext): Promise<void> {
    return this.runtime.execute(data, ctx, (input: NodeInput) =>
      this.tools.run(sqlQueryTool, input, async ({ timeoutMs }) => {
        const args = toolArgs(input.state, input.task, sqlQueryInputSchema);
        const source = await this.dataSources.resolve(input.task.run_id, args.data_source);
        const limits = {
          // The statement must end (and roll back) before the tool's own budget runs out.
          statementTimeoutMs: Math.max(100, Math.min(source.options.statement_timeout_ms, timeoutMs - 1000)),
          maxRows: Math.min(source.options.max_rows, args.max_rows ?? Infinity),
          maxBytes: source.options.max_bytes,
        };
        const client = await this.dataSources.connect(source);
        let res;
        try {
          res = await sqlQuery(client, args, limits);
          client.release();
        } catch (err) {
          // A broken connection is discarded rather than lent out again.
          client.release((err as { code?: string }).code === 'sql_connection_error');
          throw err;
        }
        return {
          preparation: `Ran a read-only query on "${source.name}" (timeout ${limits.statementTimeoutMs} ms, at most ${limits.maxRows} rows).`,
          summary:
            `${res.row_count} row(s) of ${res.columns.length} column(s) from "${source.name}"` +
            (res.truncated ? ` (truncated by ${res.truncated_by})` : ''),
          result: res,
          next: NEXT,
        };
      }),
    );
  }
}
