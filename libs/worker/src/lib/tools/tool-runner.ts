import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import { TOOL_OUTPUT_REF_PREFIX, type RunErrorCode } from '@switchyard/contracts';
import type { NodeInput, NodeOutput } from '../node-runtime';
import { asToolOutput } from '../tool-args';
import { jsonBytes, jsonbSafe, shrinkToFit, truncatedResult } from './output-cap';
import { SpanStatusCode, inSpan, recording } from '@switchyard/telemetry';
import { ToolReceipts } from './tool-receipts';
import { WorkerRepository } from '../worker.repository';

/** The environment variables of the limits every tool runs under (validated by each tool service). */
export const toolLimitsEnvSchema = z.object({
  // Every tool's time budget (a tool may declare its own); past it the action carries tool_timeout.
  SWITCHYARD_TOOL_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  // A result larger than this (as JSON) is shrunk in the action; the full one is kept in tool_outputs.
  SWITCHYARD_TOOL_OUTPUT_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(512)
    .max(10 * 1024 * 1024)
    .default(16 * 1024),
});

/** The limits every tool runs under. */
export class ToolLimits {
  constructor(
    readonly toolTimeoutMs: number,
    readonly toolOutputMaxBytes: number,
  ) {}

  static of(env: z.infer<typeof toolLimitsEnvSchema>): ToolLimits {
    return new ToolLimits(env.SWITCHYARD_TOOL_TIMEOUT_MS, env.SWITCHYARD_TOOL_OUTPUT_MAX_BYTES);
  }
}

/** How a tool presents itself (registered in sy_nodes) and the limits it runs under. */
export interface ToolDeclaration {
  name: string;
  description: string;
  inputJsonSchema: Record<string, unknown>;
  /** Safe to run twice; a tool that is not gets the task id as its idempotency key. */
  idempotent: boolean;
  /** Overrides SWITCHYARD_TOOL_TIMEOUT_MS for this tool. */
  timeoutMs?: number;
}

/** What a tool's work receives besides the node input. */
export interface ToolContext {
  /** Aborted when the run is cancelled or the tool's time is up: pass it to every I/O call. */
  signal: AbortSignal;
  /** The task id: the same on a redelivery, so a receiver can drop the repeat. */
  idempotencyKey: string;
  /** The tool's whole budget, for tools that set their own (shorter) timeouts inside it. */
  timeoutMs: number;
}

/** The tool's time was up: an observation for the agent, not a crash. */
export class ToolTimeoutError extends Error {
  readonly retryable = false;
  readonly code = 'tool_timeout' satisfies RunErrorCode;
  constructor(tool: string, ms: number) {
    super(`${tool} did not finish within ${ms} ms and was stopped`);
    this.name = 'ToolTimeoutError';
  }
}

/** Settles with the work, or rejects once the signal aborts even if the work ignores it. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * The plumbing every tool shares: a time budget (the run's cancel signal plus the tool's
 * timeout), tool failures as observations (asToolOutput), and the output cap — a result whose
 * JSON is larger than SWITCHYARD_TOOL_OUTPUT_MAX_BYTES is shrunk in the action (same shape, with
 * `reference: 'tool-output:<id>'`) and kept whole in `tool_outputs`.
 */
@Injectable()
export class ToolRunner {
  private readonly outputs: WorkerRepository;

  constructor(
    @Inject(DataSource) ds: DataSource,
    @Inject(ToolLimits) private readonly config: ToolLimits,
    @Inject(ToolReceipts) private readonly receipts: ToolReceipts,
  ) {
    this.outputs = new WorkerRepository(ds);
  }

  async run(
    tool: ToolDeclaration,
    input: NodeInput,
    work: (ctx: ToolContext) => Promise<NodeOutput>,
  ): Promise<NodeOutput> {
    const call = () =>
      asToolOutput(
        () =>
          this.withinBudget(
            tool,
            ({ signal, timeoutMs }) => work({ signal, idempotencyKey: input.task.task_id, timeoutMs }),
            { signal: input.signal },
          ),
        tool.name,
        input.lastDelivery,
      ).then((out) => (out.error ? out : this.capOutput(tool.name, input, out)));
    // A tool that is not safe to run twice acts at most once per task (see ToolReceipts).
    const once = () => (tool.idempotent ? call() : this.receipts.once(input, tool.name, call));
    if (!recording()) {
      return once();
    }
    return inSpan(`tool ${tool.name}`, { tool: tool.name, run_id: input.task.run_id }, async (span) => {
      const out = await once();
      if (out.error) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: out.error.message });
        span.setAttribute('error.type', out.error.code);
      }
      return out;
    });
  }

  /**
   * `work` within the tool's time budget (lowered to `maxMs` when given) and `signal`: past the
   * budget it is abandoned with ToolTimeoutError even if it ignores its signal; an abort of
   * `signal` itself (a cancelled run) is passed on as it is.
   */
  async withinBudget<T>(
    tool: ToolDeclaration,
    work: (ctx: { signal: AbortSignal; timeoutMs: number }) => Promise<T>,
    opts: { signal?: AbortSignal; maxMs?: number } = {},
  ): Promise<T> {
    const timeoutMs = Math.min(tool.timeoutMs ?? this.config.toolTimeoutMs, opts.maxMs ?? Infinity);
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
    try {
      return await untilAborted(work({ signal, timeoutMs }), signal);
    } catch (err) {
      // A cancelled run is the runtime's business (it drops the task); a timeout is the agent's.
      if (timeout.aborted && !opts.signal?.aborted) {
        throw new ToolTimeoutError(tool.name, timeoutMs);
      }
      throw err;
    }
  }

  private async capOutput(tool: string, input: NodeInput, out: NodeOutput): Promise<NodeOutput> {
    const max = this.config.toolOutputMaxBytes;
    const oversized = (out.context ?? []).some((c) => jsonBytes(c.content) > max);
    if (jsonBytes(out.result) <= max && !oversized) {
      return out;
    }
    const reference = TOOL_OUTPUT_REF_PREFIX + (await this.keep(tool, input, out.result));
    const id = reference.slice(TOOL_OUTPUT_REF_PREFIX.length);
    return {
      ...out,
      result: jsonBytes(out.result) <= max ? out.result : truncatedResult(out.result, max, reference),
      ...(out.context
        ? {
            context: out.context.map((c) =>
              jsonBytes(c.content) <= max
                ? c
                : {
                    ...c,
                    content: shrinkToFit(c.content, max),
                    mapping: { provider: 'tool-output', path: id },
                  },
            ),
          }
        : {}),
    };
  }

  /** Stores the full result; a redelivered task replaces its own row, so the reference stays one. */
  private async keep(tool: string, input: NodeInput, result: unknown): Promise<string> {
    const json = jsonbSafe(JSON.stringify(result) ?? 'null');
    return this.outputs.keepToolOutput({
      runId: input.task.run_id,
      taskId: input.task.task_id,
      tool,
      contentJson: json,
      bytes: Buffer.byteLength(json, 'utf8'),
    });
  }
}
