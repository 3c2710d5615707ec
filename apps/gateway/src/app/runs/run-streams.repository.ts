import { sql } from 'kysely';
import type { DataSource } from 'typeorm';
import { type RunStatus, TERMINAL_STATUSES, type waitingForUserPayload } from '@switchyard/contracts';
import { type Db, kyselyOf } from '@switchyard/persistence';

/** A run's row as a stream rebuilt from Postgres reads it. */
export interface RebuiltRunRow {
  status: RunStatus;
  waiting: Parameters<typeof waitingForUserPayload>[0] | null;
  error: { code: string; message: string } | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

/** What the RAGFlow-format stream reads of a run before its events (`inputs`, `dsl`: JSON as stored). */
export interface RagflowContextRow {
  thread_id: string;
  inputs: unknown;
  kind: string | null;
  dsl: unknown;
}

/** What the RAGFlow-format stream reads of a run once it ended. */
export interface RagflowEndRow {
  status: RunStatus;
  answer: string | null;
  started_at: Date | null;
  finished_at: Date | null;
}

/**
 * What the event streams and the followers of a run read of it in Postgres, the truth behind
 * Redis's events. By run id: the caller already checked the run is the tenant's.
 */
export class RunStreamsRepository {
  private readonly db: Db;

  constructor(ds: DataSource) {
    this.db = kyselyOf(ds);
  }

  /** The run's status and, while it waits, the human task it waits on. */
  async status(runId: string): Promise<{ status: RunStatus; waiting_task: string | null } | undefined> {
    const row = await this.db
      .selectFrom('runs')
      .select(['status', sql<string | null>`waiting->>'task_id'`.as('waiting_task')])
      .where('id', '=', runId)
      .executeTakeFirst();
    return row && { ...row, status: row.status as RunStatus };
  }

  /** Which of these runs are over (one statement for them all). */
  async ended(runIds: string[]): Promise<string[]> {
    const rows = await this.db
      .selectFrom('runs')
      .select('id')
      .where('id', '=', (eb) => eb.fn.any(eb.val(runIds)))
      .where('status', '=', (eb) => eb.fn.any(eb.val<string[]>([...TERMINAL_STATUSES])))
      .execute();
    return rows.map((r) => r.id);
  }

  /** The run's status, wait, error and times, to rebuild its events from. */
  async forRebuild(runId: string): Promise<RebuiltRunRow | undefined> {
    const row = await this.db
      .selectFrom('runs')
      .select(['status', 'error', 'waiting', 'created_at', 'started_at', 'finished_at'])
      .where('id', '=', runId)
      .executeTakeFirst();
    // The orchestrator writes these columns: a RunStatus, a RunWaiting, a RunError.
    return (
      row && {
        ...row,
        status: row.status as RunStatus,
        waiting: row.waiting as RebuiltRunRow['waiting'],
        error: row.error as RebuiltRunRow['error'],
      }
    );
  }

  /** The run's thread, its request's `inputs`, and its agent's kind and DSL. */
  async ragflowContext(runId: string): Promise<RagflowContextRow | undefined> {
    return this.db
      .selectFrom('runs')
      .select([
        'thread_id',
        sql<unknown>`input->'inputs'`.as('inputs'),
        sql<string | null>`agent_config->>'kind'`.as('kind'),
        sql<unknown>`agent_config->'dsl'`.as('dsl'),
      ])
      .where('id', '=', runId)
      .executeTakeFirst();
  }

  /** The run's status, answer and times. */
  async ragflowEnd(runId: string): Promise<RagflowEndRow | undefined> {
    const row = await this.db
      .selectFrom('runs')
      .select(['status', sql<string | null>`output->>'answer'`.as('answer'), 'started_at', 'finished_at'])
      .where('id', '=', runId)
      .executeTakeFirst();
    return row && { ...row, status: row.status as RunStatus };
  }

  /** The outputs of the last graph component the run did not skip (undefined: none ran). */
  async lastGraphOutputs(runId: string): Promise<unknown> {
    const row = await this.db
      .selectFrom('state_deltas')
      .select(sql<unknown>`delta->'action'->'result'->'outputs'`.as('outputs'))
      .where('run_id', '=', runId)
      .where(sql<string>`delta->'action'->>'node'`, 'like', 'graph.%')
      .where(sql<string>`coalesce(delta->'action'->'result'->>'skipped', 'false')`, '<>', 'true')
      .orderBy('version', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row?.outputs;
  }
}
