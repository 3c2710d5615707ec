import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { z } from 'zod';
import type { NodeOutput } from '@switchyard/worker';
import { SqlDataSources } from '@switchyard/sql-sources';
import type { ToolContext, ToolDeclaration } from '@switchyard/worker';
import { calculatorInputSchema, calculatorTool, evaluateExpression } from '../tools/calculator.tool';
import { extractData, extractDataInputSchema } from '@switchyard/persistence';
import { extractDataTool } from '../tools/extract-data.tool';
import { httpGet, httpGetInputSchema, httpGetTool } from '../tools/http-get.tool';
import { httpRequest, httpRequestInputSchema, httpRequestTool } from '../tools/http-request.tool';
import { sqlQueryInputSchema, sqlQueryTool } from '../tools/sql/sql-query.tool';
import { ToolExecutorConfig } from './tool-executor.config';

/** What a catalogue tool's work gives: the action's parts (the node adds `next`). */
/** Whose call it is: the run, and the tenant the task or request works for (its data sources). */
interface CallerOf {
  runId: string;
  tenantId: string;
}

export interface CatalogueWork {
  preparation: string;
  summary: string;
  result: unknown;
  context?: NodeOutput['context'];
  relevance?: number;
}

/** One of the built-in tools: how it presents itself, its arguments, its work. */
export interface CatalogueTool {
  decl: ToolDeclaration;
  schema: z.ZodType<Record<string, unknown>>;
  run(args: Record<string, unknown>, ctx: ToolContext & CallerOf): Promise<CatalogueWork>;
}

function tool<S extends z.ZodType<Record<string, unknown>>>(
  decl: ToolDeclaration,
  schema: S,
  run: (args: z.infer<S>, ctx: ToolContext & CallerOf) => Promise<CatalogueWork>,
): CatalogueTool {
  return { decl, schema, run: (args, ctx) => run(args as z.infer<S>, ctx) };
}

/**
 * Switchyard's built-in tools, once: the tool nodes (ToolsController) and the calls graph Agents
 * make over NATS (ToolCallsServer) run the same work.
 */
@Injectable()
export class CatalogueTools {
  private readonly tools: Map<string, CatalogueTool>;

  constructor(
    @Inject(ToolExecutorConfig) private readonly config: ToolExecutorConfig,
    @Inject(SqlDataSources) private readonly dataSources: SqlDataSources,
    @Inject(DataSource) private readonly ds: DataSource,
  ) {
    this.tools = new Map(
      [
        tool(calculatorTool, calculatorInputSchema, async ({ expression }) => {
          const value = evaluateExpression(expression);
          return {
            preparation: `Parsed the expression "${expression}".`,
            summary: `${expression} = ${value}`,
            result: { expression, value },
            relevance: 1,
          };
        }),
        tool(httpGetTool, httpGetInputSchema, async (args, { signal, timeoutMs }) => {
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
          };
        }),
        tool(httpRequestTool, httpRequestInputSchema, async (args, { signal, timeoutMs, idempotencyKey }) => {
          const res = await httpRequest(args, {
            signal,
            allowHosts: this.config.allowHosts,
            lookup: this.config.lookup,
            timeoutMs: Math.min(this.config.timeoutMs, timeoutMs),
            // A repeated call sends the same key: the receiver can drop the repeat.
            idempotencyKey,
          });
          return {
            preparation: `Checked that ${new URL(args.url).hostname} resolves to public addresses only.`,
            summary: `${res.method} ${res.final_url} → ${res.status}, ${res.bytes} bytes${res.truncated ? ' (truncated)' : ''}`,
            result: res,
            context: [{ type: 'text', content: res.body, important: false, usage_type: 'reference' }],
          };
        }),
        tool(sqlQueryTool, sqlQueryInputSchema, async (args, { timeoutMs, tenantId }) => {
          const source = await this.dataSources.resolve(tenantId, args.data_source);
          const limits = {
            // The statement must end (and roll back) before the tool's own budget runs out.
            statementTimeoutMs: Math.max(
              100,
              Math.min(source.options.statement_timeout_ms, timeoutMs - 1000),
            ),
            maxRows: Math.min(source.options.max_rows, args.max_rows ?? Infinity),
            maxBytes: source.options.max_bytes,
          };
          const client = await this.dataSources.connect(source);
          let res;
          try {
            res = await client.query(args, limits);
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
          };
        }),
        tool(extractDataTool, extractDataInputSchema, async (args, { runId }) => {
          const { value, tool: made, bytes } = await extractData(this.ds, runId, args);
          const shown = JSON.stringify(value) ?? 'null';
          return {
            preparation: `Read ${args.path || 'the whole'} of ${args.reference} (${made}'s output, ${bytes} bytes).`,
            summary: `${args.reference}${args.path}: ${shown.length > 200 ? `${shown.slice(0, 200)}…` : shown}`,
            result: { reference: args.reference, path: args.path, value },
            relevance: 1,
          };
        }),
      ].map((t) => [t.decl.name, t]),
    );
  }

  get(name: string): CatalogueTool | undefined {
    return this.tools.get(name);
  }

  /** The one of `name`; a name that is not a catalogue tool is a programming error. */
  of(name: string): CatalogueTool {
    const t = this.tools.get(name);
    if (!t) {
      throw new Error(`no catalogue tool "${name}"`);
    }
    return t;
  }
}
