import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { isRetryable } from '@switchyard/jetstream';
import type { RunErrorCode } from '@switchyard/contracts';
import type { NodeInput, NodeOutput } from '../node-runtime';
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

  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  async once(input: NodeInput, tool: string, act: () => Promise<NodeOutput>): Promise<NodeOutput> {
    const { task } = input;
    const inserted = (await this.ds.query(
      `INSERT INTO tool_receipts (task_id, run_id, tool, status) VALUES ($1, $2, $3, 'started')
       ON CONFLICT (task_id) DO NOTHING RETURNING task_id`,
      [task.task_id, task.run_id, tool],
    )) as unknown[];
    if (inserted.length === 0) {
      return this.earlier(input, tool);
    }
    let out: NodeOutput;
    try {
      out = await act();
    } catch (err) {
      if (isRetryable(err)) {
        await this.ds.query(`DELETE FROM tool_receipts WHERE task_id = $1 AND status = 'started'`, [
          task.task_id,
        ]);
      }
      throw err;
    }
    await this.ds.query(
      `UPDATE tool_receipts SET status = 'done', output = $2::jsonb, finished_at = now() WHERE task_id = $1`,
      [task.task_id, jsonbSafe(JSON.stringify(out))],
    );
    return out;
  }

  private async earlier(input: NodeInput, tool: string): Promise<NodeOutput> {
    const [row] = (await this.ds.query(
      `SELECT status, output, started_at FROM tool_receipts WHERE task_id = $1`,
      [input.task.task_id],
    )) as { status: 'started' | 'done'; output: NodeOutput | null; started_at: Date }[];
    const log = { run_id: input.task.run_id, task_id: input.task.task_id, tool };
    if (row?.status === 'done' && row.output) {
      this.logger.log({ ...log, msg: 'redelivered call answered from its receipt (not called again)' });
      return {
        ...row.output,
        preparation:
          `${row.output.preparation ?? ''} (Answered from the receipt of an earlier delivery: ${tool} was not called again.)`.trim(),
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
