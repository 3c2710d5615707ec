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
  type ToolRpcRequest,
  ToolRpcRequestSchema,
} from '@switchyard/contracts';
import { JetStreamConnection } from '@switchyard/jetstream';
import { ToolLimits, guardToolWork, shrinkToFit, untilAborted } from '@switchyard/worker';
import { CatalogueTools } from './catalogue-tools';
import { serveRequests } from './serve-requests';

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
    @Inject(ToolLimits) private readonly limits: ToolLimits,
  ) {}

  onApplicationBootstrap(): void {
    this.sub = serveRequests(this.nats.nc, TOOL_CALL_SUBJECT, (data) => this.answer(data), this.logger);
  }

  onApplicationShutdown(): void {
    this.sub?.unsubscribe();
  }

  async answer(data: Uint8Array): Promise<ToolRpcReply> {
    let req: ToolRpcRequest;
    try {
      req = ToolRpcRequestSchema.parse(JSON.parse(new TextDecoder().decode(data)));
    } catch (err) {
      return { ok: false, code: 'tool_bad_request', message: (err as Error).message };
    }
    const tool = this.catalogue.get(req.tool);
    if (!tool) {
      return { ok: false, code: 'unknown_tool', message: `"${req.tool}" is not a catalogue tool` };
    }
    const args = tool.schema.safeParse(req.args);
    if (!args.success) {
      const issue = args.error.issues[0];
      return {
        ok: false,
        code: 'invalid_tool_input',
        message: `${req.tool}: ${issue.path.join('.') || 'arguments'}: ${issue.message}`,
      };
    }
    const timeoutMs = Math.min(req.timeout_ms, tool.decl.timeoutMs ?? this.limits.toolTimeoutMs);
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const work = await guardToolWork(req.tool, () =>
        untilAborted(
          tool.run(args.data, { signal, timeoutMs, idempotencyKey: req.call_id, runId: req.run_id }),
          signal,
        ),
      );
      // Capped as the node's action is: a smaller value of the same shape (a long body cut).
      const result = work.result ?? null;
      const capped = shrinkToFit(result, this.limits.toolOutputMaxBytes);
      return { ok: true, text: JSON.stringify(capped), truncated: capped !== result };
    } catch (err) {
      const e = err as Error & { code?: unknown };
      if (signal.aborted) {
        return {
          ok: false,
          code: 'tool_timeout',
          message: `${req.tool} did not finish within ${timeoutMs} ms and was stopped`,
        };
      }
      return { ok: false, code: typeof e.code === 'string' ? e.code : 'tool_error', message: e.message };
    }
  }
}
