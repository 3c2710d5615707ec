import type { DataSource } from 'typeorm';
import { type Db, kyselyOf } from '@switchyard/persistence';

/** A tool receipt as the at-most-once guard reads it back. */
export interface ToolReceiptRow {
  status: string;
  output: unknown;
  started_at: Date;
}

/**
 * What node services read and write in Postgres: whether the orchestrator recorded a task's
 * delta (`run_tasks`), the receipts of calls not safe to repeat (`tool_receipts`) and the full
 * results of capped tool outputs (`tool_outputs`).
 */
export class WorkerRepository {
  private readonly db: Db;

  constructor(ds: DataSource) {
    this.db = kyselyOf(ds);
  }

  /** Whether the task's delta arrived at the orchestrator or was applied with its step. */
  async taskRecorded(taskId: string): Promise<boolean> {
    const rows = await this.db
      .selectFrom('run_tasks')
      .select('status')
      .where('id', '=', taskId)
      .where('status', 'in', ['arrived', 'applied'])
      .execute();
    return rows.length > 0;
  }

  /** Writes the task's `started` receipt; false when the task already has one. */
  async startReceipt(taskId: string, runId: string, tool: string): Promise<boolean> {
    const inserted = await this.db
      .insertInto('tool_receipts')
      .values({ task_id: taskId, run_id: runId, tool, status: 'started' })
      .onConflict((oc) => oc.column('task_id').doNothing())
      .returning('task_id')
      .execute();
    return inserted.length > 0;
  }

  /** Drops the task's receipt while it is only `started` (the call failed and may be retried). */
  async dropStartedReceipt(taskId: string): Promise<void> {
    await this.db
      .deleteFrom('tool_receipts')
      .where('task_id', '=', taskId)
      .where('status', '=', 'started')
      .execute();
  }

  /** Marks the task's receipt `done` with the call's output (`outputJson`: JSON text). */
  async finishReceipt(taskId: string, outputJson: string): Promise<void> {
    await this.db
      .updateTable('tool_receipts')
      .set((eb) => ({
        status: 'done',
        output: eb.cast(eb.val(outputJson), 'jsonb'),
        finished_at: eb.fn('now'),
      }))
      .where('task_id', '=', taskId)
      .execute();
  }

  async receipt(taskId: string): Promise<ToolReceiptRow | undefined> {
    return this.db
      .selectFrom('tool_receipts')
      .select(['status', 'output', 'started_at'])
      .where('task_id', '=', taskId)
      .executeTakeFirst();
  }

  /**
   * Stores a tool's full result (`contentJson`: JSON text of `bytes` bytes) under its task; a
   * redelivered task replaces its own row. Answers the row's id.
   */
  async keepToolOutput(row: {
    runId: string;
    taskId: string;
    tool: string;
    contentJson: string;
    bytes: number;
  }): Promise<string> {
    const kept = await this.db
      .insertInto('tool_outputs')
      .values((eb) => ({
        run_id: row.runId,
        task_id: row.taskId,
        tool: row.tool,
        content: eb.cast(eb.val(row.contentJson), 'jsonb'),
        bytes: row.bytes,
      }))
      .onConflict((oc) =>
        oc.column('task_id').doUpdateSet((eb) => ({
          content: eb.ref('excluded.content'),
          bytes: eb.ref('excluded.bytes'),
          tool: eb.ref('excluded.tool'),
        })),
      )
      .returning('id')
      .executeTakeFirstOrThrow();
    return kept.id;
  }
}
