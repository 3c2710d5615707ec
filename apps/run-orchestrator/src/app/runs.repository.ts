import { type Selectable, sql } from 'kysely';
import type { DataSource } from 'typeorm';
import type { RunPriority, RunStatus } from '@switchyard/contracts';
import { type DB, type Db, kyselyOf } from '@switchyard/persistence';
import { RUN_COLUMN_LIST, type RunRow } from './run-row';

/** A run's unfinished task: what a cancel asks the node services to abort. */
export interface PendingTaskRow {
  id: string;
  node: string;
}

/** Per status, the runs not yet over. */
export interface ActiveRunsRow {
  status: string;
  n: number;
}

/** The outbox's backlog: tasks not yet published, and the age in seconds of the oldest. */
export interface OutboxBacklogRow {
  n: number;
  age: number;
}

/** An idle thread whose history up to `upto` may be compacted. */
export interface CompactableThreadRow {
  id: string;
  upto: number;
}

// The statuses of a run not yet over (the predicate of runs_tenant_active_idx, written as literals).
const ACTIVE = [sql.lit('queued'), sql.lit('running'), sql.lit('waiting')];

/** runs' status and priority hold only their domain values; input and node_timeouts the JSON the gateway wrote. */
function runRow(r: Pick<Selectable<DB['runs']>, (typeof RUN_COLUMN_LIST)[number]>): RunRow {
  return {
    ...r,
    status: r.status as RunStatus,
    priority: r.priority as RunPriority,
    input: r.input as unknown as RunRow['input'],
    node_timeouts: r.node_timeouts as RunRow['node_timeouts'],
  };
}

/**
 * The orchestrator's statements off the step's hot path: the periodic jobs (delayed runs, the
 * expiry sweep, retention, the gauges), a cancel's pending tasks and a run ended from outside its
 * steps. Written with Kysely; the methods taking a `tx` run in a transaction the caller holds
 * (`kyselyOfManager(m)`), because the caller's other work (deleteThreads, compactHistory) joins it.
 */
export class RunsRepository {
  private readonly db: Db;

  constructor(ds: DataSource) {
    this.db = kyselyOf(ds);
  }

  /** The run's pending tasks, in the order they were made. */
  pendingTasks(runId: string): Promise<PendingTaskRow[]> {
    return this.db
      .selectFrom('run_tasks')
      .select(['id', 'node'])
      .where('run_id', '=', runId)
      .where('status', '=', sql.lit('pending'))
      .orderBy('step')
      .orderBy('seq')
      .execute();
  }

  /** Up to `limit` threads with a queued run whose `not_before` has come. */
  async dueDelayedThreads(limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('runs')
      .select('thread_id')
      .distinct()
      .where('status', '=', sql.lit('queued'))
      .where('not_before', 'is not', null)
      .where('not_before', '<=', sql<Date>`now()`)
      .limit(sql.lit(limit))
      .execute();
    return rows.map((r) => r.thread_id);
  }

  /** Deletes up to `limit` expired store items (skipping rows another replica holds); answers how many went. */
  async deleteExpiredStoreItems(limit: number): Promise<number> {
    // ctid is no column of the table types: one statement as SQL.
    const { rows } = await sql<{ n: number }>`WITH gone AS (
        DELETE FROM store_items WHERE ctid IN (
          SELECT ctid FROM store_items WHERE expires_at <= now() LIMIT ${sql.lit(limit)} FOR UPDATE SKIP LOCKED)
        RETURNING 1)
      SELECT count(*)::int AS n FROM gone`.execute(this.db);
    return rows[0].n;
  }

  /**
   * Locks (skipping those another replica holds) up to `limit` threads of stateless runs that are
   * done: every run of theirs ended and no webhook of theirs still to send (it reads the thread's
   * values). Oldest first.
   */
  async lockDoneStatelessThreads(tx: Db, limit: number): Promise<string[]> {
    const rows = await tx
      .selectFrom('threads as t')
      .select('t.id')
      .where('t.delete_when_done', '=', sql.lit(true))
      .where('t.active_run_id', 'is', null)
      .where(({ exists, selectFrom }) =>
        exists(selectFrom('runs as r').select(sql.lit(1).as('one')).whereRef('r.thread_id', '=', 't.id')),
      )
      .where(({ exists, not, selectFrom }) =>
        not(
          exists(
            selectFrom('runs as r')
              .select(sql.lit(1).as('one'))
              .whereRef('r.thread_id', '=', 't.id')
              .where('r.status', 'in', ACTIVE),
          ),
        ),
      )
      .where(({ exists, not, selectFrom }) =>
        not(
          exists(
            selectFrom('webhook_deliveries as d')
              .innerJoin('runs as r', 'r.id', 'd.run_id')
              .select(sql.lit(1).as('one'))
              .whereRef('r.thread_id', '=', 't.id')
              .where('d.delivered_at', 'is', null)
              .where('d.gave_up_at', 'is', null),
          ),
        ),
      )
      .orderBy('t.created_at')
      .limit(sql.lit(limit))
      .forUpdate('t')
      .skipLocked()
      .execute();
    return rows.map((r) => r.id);
  }

  /** The count of runs not yet over, per status (statuses with none are absent). */
  activeRuns(): Promise<ActiveRunsRow[]> {
    return this.db
      .selectFrom('runs')
      .select(['status', sql<number>`count(*)::int`.as('n')])
      .where('status', 'in', ACTIVE)
      .groupBy('status')
      .execute();
  }

  /** The outbox's backlog. */
  async outboxBacklog(): Promise<OutboxBacklogRow | undefined> {
    return this.db
      .selectFrom('run_tasks')
      .select([
        sql<number>`count(*)::int`.as('n'),
        sql<number>`coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8`.as('age'),
      ])
      .where('published_at', 'is', null)
      .executeTakeFirst();
  }

  /** Takes the transaction-scoped advisory lock `key` if no one holds it; answers whether it did. */
  async tryAdvisoryXactLock(tx: Db, key: number): Promise<boolean> {
    const { rows } = await sql<{
      locked: boolean;
    }>`SELECT pg_try_advisory_xact_lock(${key}) AS locked`.execute(tx);
    return rows[0].locked;
  }

  /**
   * Up to `limit` runs finished before `cutoff` that still have bookkeeping: task rows, tool
   * outputs, tool receipts or files their components made.
   */
  async finishedRunsWithBookkeeping(tx: Db, cutoff: Date, limit: number): Promise<string[]> {
    const rows = await tx
      .selectFrom('runs as r')
      .select('r.id')
      .where('r.finished_at', '<', cutoff)
      .where(({ exists, or, selectFrom }) =>
        or([
          exists(selectFrom('run_tasks as t').select(sql.lit(1).as('one')).whereRef('t.run_id', '=', 'r.id')),
          exists(
            selectFrom('tool_outputs as o').select(sql.lit(1).as('one')).whereRef('o.run_id', '=', 'r.id'),
          ),
          exists(
            selectFrom('tool_receipts as c').select(sql.lit(1).as('one')).whereRef('c.run_id', '=', 'r.id'),
          ),
          exists(
            selectFrom('files as f')
              .select(sql.lit(1).as('one'))
              .whereRef('f.run_id', '=', 'r.id')
              .where('f.task_id', 'is not', null),
          ),
        ]),
      )
      .limit(sql.lit(limit))
      .execute();
    return rows.map((r) => r.id);
  }

  /** Deletes these runs' task rows, tool outputs, tool receipts and the files their components made (uploads stay). */
  async deleteRunBookkeeping(tx: Db, runIds: string[]): Promise<void> {
    const ids = sql<string>`ANY(${runIds}::uuid[])`;
    await tx.deleteFrom('run_tasks').where('run_id', '=', ids).execute();
    await tx.deleteFrom('tool_outputs').where('run_id', '=', ids).execute();
    await tx.deleteFrom('tool_receipts').where('run_id', '=', ids).execute();
    await tx.deleteFrom('files').where('run_id', '=', ids).where('task_id', 'is not', null).execute();
  }

  /**
   * Per idle thread (up to `limit`), the last version written by a run that ended before `cutoff`
   * (a thread's runs follow one another, so every version up to it belongs to such runs).
   */
  compactableThreads(tx: Db, cutoff: Date, limit: number): Promise<CompactableThreadRow[]> {
    return tx
      .selectFrom('runs as r')
      .innerJoin('threads as th', (j) =>
        j.onRef('th.id', '=', 'r.thread_id').on('th.active_run_id', 'is', null),
      )
      .innerJoin('state_deltas as d', 'd.run_id', 'r.id')
      .select(['th.id', sql<number>`max(d.version)::int`.as('upto')])
      .where('r.finished_at', '<', cutoff)
      .groupBy('th.id')
      .limit(sql.lit(limit))
      .execute();
  }

  /** Locks the thread if it is idle and no one else holds it; answers whether it did. */
  async lockIdleThread(tx: Db, threadId: string): Promise<boolean> {
    const row = await tx
      .selectFrom('threads')
      .select('id')
      .where('id', '=', threadId)
      .where('active_run_id', 'is', null)
      .forUpdate()
      .skipLocked()
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The run's row, locked for the rest of the transaction. */
  async lockRun(tx: Db, runId: string): Promise<RunRow | undefined> {
    const row = await tx
      .selectFrom('runs')
      .select(RUN_COLUMN_LIST)
      .where('id', '=', runId)
      .forUpdate()
      .executeTakeFirst();
    return row && runRow(row);
  }
}
