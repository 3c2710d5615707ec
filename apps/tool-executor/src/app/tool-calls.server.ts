import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { Subscription } from 'nats';
import {
  TOOL_CALL_SUBJECT,
  type ToolRpcReply,
  ToolRpcRequestSchema,
  type RunErrorCode,
} from '@switchyard/contracts';
import { JetStreamConnection } from '@switchyard/jetstream';
import { TenantWeights } from '@switchyard/platform';
import { ToolLimits, ToolRunner, guardToolWork, parseToolArgs, shrinkToFit } from '@switchyard/worker';
import { CatalogueTools } from './catalogue-tools';
import { type RequestBody, requestOf, serveRequests } from './serve-requests';

/**
 * Answers TOOL_CALL_SUBJECT requests: a graph Agent's call of a catalogue tool, run with the same
 * work, time budget and output cap as the tool's node (one tool-executor of the queue group
 * answers). The result is its JSON text; a tool's failure is an answer too (the Agent's model
 * reads it, as RAGFlow passes a tool's error on). Not kept in tool_outputs: a cut result says so.
 */
@Injectable()
export class ToolCallsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ToolCallsServer.name);
  private sub?: Subscription;

  constructor(
    @Inject(JetStreamConnection) private readonly nats: JetStreamConnection,
    @Inject(CatalogueTools) private readonly catalogue: CatalogueTools,
    @Inject(ToolRunner) private readonly runner: ToolRunner,
    @Inject(ToolLimits) private readonly limits: ToolLimits,
    @Inject(TenantWeights) private readonly weights: TenantWeights,
  ) {}

  onApplicationBootstrap(): void {
    this.sub = serveRequests(
      this.nats.nc,
      TOOL_CALL_SUBJECT,
      (body) => this.answer(body),
      this.logger,
      this.weights,
    );
  }

  onApplicationShutdown(): void {
    this.sub?.unsubscribe();
  }

  async answer(body: RequestBody): Promise<ToolRpcReply> {
    const parsed = requestOf(body, ToolRpcRequestSchema);
    if (!('req' in parsed)) {
      return { ok: false, code: 'tool_bad_request' satisfies RunErrorCode, message: parsed.message };
    }
    const { req } = parsed;
    const tool = this.catalogue.get(req.tool);
    if (!tool) {
      return {
        ok: false,
        code: 'unknown_tool' satisfies RunErrorCode,
        message: `"${req.tool}" is not a catalogue tool`,
      };
    }
    if (!req.tenant_id) {
      // The planner names the tenant of every call; a call for no tenant has no data sources.
      return {
        ok: false,
        code: 'tool_bad_request' satisfies RunErrorCode,
        message: 'the request names no tenant',
      };
    }
    const tenantId = req.tenant_id;
    try {
      const args = parseToolArgs(req.tool, req.args, tool.schema);
      // The node's own budget (the asker's timeout when shorter); an error escaping the tool's
      // promise chain fails this call, not the service.
      const work = await guardToolWork(req.tool, () =>
        this.runner.withinBudget(
          tool.decl,
          (ctx) => tool.run(args, { ...ctx, idempotencyKey: req.call_id, runId: req.run_id, tenantId }),
          { maxMs: req.timeout_ms },
        ),
      );
      // Capped as the node's action is: a smaller value of the same shape (a long body cut).
      const result = work.result ?? null;
      const capped = shrinkToFit(result, this.limits.toolOutputMaxBytes);
      return { ok: true, text: JSON.stringify(capped), truncated: capped !== result };
    } catch (err) {
      // invalid_tool_input, tool_timeout, the tool's own codes (forbidden_address, syntax_error, …)
      const e = err as Error & { code?: unknown };
      return {
        ok: false,
        code: typeof e.code === 'string' ? e.code : ('tool_error' satisfies RunErrorCode),
        message: e.message,
      };
    }
  }
}
