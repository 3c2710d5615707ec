import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { isRetryable } from '@switchyard/jetstream';
import type { RunErrorCode } from '@switchyard/contracts';
import type { NodeInput, NodeOutput } from '../node-runtime';
import { WorkerRepository } from '../worker.repository';
import { jsonbSafe } from './output-cap';

/** What the agent sees when an earlier delivery of a non-idempotent call may have acted. */
export const OUTCOME_UNKNOWN = 'tool_outcome_unknown' satisfies RunErrorCode;

/**
 * At most once for tools that are not safe to run twice (http_request, MCP tools without a
 * read-only or idempotent hint). Before the call acts, a `started` receipt is written under the
 * task id; once it is done, the receipt holds the call's output. A redelivered task (lost ack,
 * crash after the call, a re-dispatch by the reaper) gets the stored output instead of acting
 * again; one whose earlier delivery started and never reported back (the service died mid-call)
 * gets `tool_outcome_unknown` — the call may or may not have reached its target, and repeating
 * it could do the thing twice. A call that failed with a retryable error drops its receipt, so
 * the redelivery acts (the tool said nothing was done).
 */
@Injectable()
export class ToolReceipts {
  private readonly logger = new Logger(ToolReceipts.name);

  private readonly receipts: WorkerRepository;

  constructor(@Inject(DataSource) ds: DataSource) {
    this.receipts = new WorkerRepository(ds);
  }

  async once(input: NodeInput, tool: string, act: () => Promise<NodeOutput>): Promise<NodeOutput> {
    const { task } = input;
    if (!(await this.receipts.startReceipt(task.task_id, task.run_id, tool))) {
      return this.earlier(input, tool);
    }
    let out: NodeOutput;
    try {
      out = await act();
    } catch (err) {
      if (isRetryable(err)) {
        await this.receipts.dropStartedReceipt(task.task_id);
      }
      throw err;
    }
    await this.receipts.finishReceipt(task.task_id, jsonbSafe(JSON.stringify(out)));
    return out;
  }

  private async earlier(input: NodeInput, tool: string): Promise<NodeOutput> {
    const row = await this.receipts.receipt(input.task.task_id);
    const log = { run_id: input.task.run_id, task_id: input.task.task_id, tool };
    if (row?.status === 'done' && row.output) {
      this.logger.log({ ...log, msg: 'redelivered call answered from its receipt (not called again)' });
      // The receipt holds what `once` stored: the call's NodeOutput as JSON.
      const output = row.output as NodeOutput;
      return {
        ...output,
        preparation:
          `${output.preparation ?? ''} (Answered from the receipt of an earlier delivery: ${tool} was not called again.)`.trim(),
      };
    }
    this.logger.warn({
      ...log,
      msg: 'an earlier delivery started this call and never reported back; not repeated',
    });
    const message =
      `an earlier attempt of this ${tool} call started at ${new Date(row?.started_at ?? Date.now()).toISOString()} ` +
      'and never reported back (its service stopped); it may or may not have reached its target, and ' +
      `${tool} is not safe to repeat, so it was not called again — check the target before retrying`;
    return {
      summary: `Failed: ${message}`,
      result: null,
      error: { code: OUTCOME_UNKNOWN, message },
      next: ['reflection'],
    };
  }
}
