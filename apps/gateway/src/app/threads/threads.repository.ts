import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { DataSource } from 'typeorm';
import type { AgentConfig } from '@switchyard/contracts';
import {
  type DB,
  type Db,
  type PgStateSource,
  compactHistory,
  deleteThreads,
  kyselyOf,
  kyselyOfManager,
} from '@switchyard/persistence';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { RUN_COLUMNS, type RunRecord, atMicros, beforeKeyset, runRecord } from '../runs/runs.repository';

export interface ThreadRecord {
  id: string;
  agent_id: string;
  created_at: Date;
  turns: number;
  version: number;
  active_run_id: string | null;
  title: string | null;
}

/** The agent a run pinned: a branch that continues the run's turn pins the same. */
export interface RunAgentRecord {
  agent_id: string;
  agent_version_id: string | null;
  agent_config: AgentConfig;
}

/** A version of the thread's log: which run's which node wrote it, and a fork's origin. */
export interface VersionRecord {
  version: number;
  /** Null for the first version of a compacted history (its delta is gone). */
  run_id: string | null;
  node: string | null;
  created_at: Date;
  /** For a `fork` version: the version it branched from. */
  from_version: number | null;
  /** The nodes its action routed to (what runs next from it; empty where its run ended). */
  next: string[] | null;
  /** The first version of a compacted history: the versions before it are gone. */
  compacted: boolean;
}

/** The columns of a thread as its resources show it. */
const THREAD_COLUMNS = [
  'id',
  'agent_id',
  'created_at',
  'turns',
  'version',
  'active_run_id',
  'title',
] as const;

/** The queries of Switchyard's thread resources (the controllers hold no SQL). */
@Injectable()
export class ThreadsRepository {
  private readonly db: Db;

  constructor(@Inject(DataSource) private readonly ds: DataSource) {
    this.db = kyselyOf(ds);
  }

  /** The tenant's threads, newest first, a page at a time (keyset on created_at, id). */
  async list(
    tenantId: string,
    q: { agent_id?: string; since?: string; until?: string; limit: number; cursor?: string },
  ): Promise<{ threads: ThreadRecord[]; next_cursor: string | null }> {
    const [micros, id] = q.cursor ? q.cursor.split('_') : [null, null];
    let query = this.db
      .selectFrom('threads')
      .select([...THREAD_COLUMNS, atMicros])
      .where('tenant_id', '=', tenantId);
    if (q.agent_id !== undefined) {
      query = query.where('agent_id', '=', q.agent_id);
    }
    if (q.since !== undefined) {
      query = query.where('created_at', '>=', sql<Date>`${q.since}::timestamptz`);
    }
    if (q.until !== undefined) {
      query = query.where('created_at', '<', sql<Date>`${q.until}::timestamptz`);
    }
    if (micros !== null) {
      query = query.where(beforeKeyset(micros, id ?? null));
    }
    const rows = await query
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(q.limit + 1)
      .execute();
    const page = rows.slice(0, q.limit);
    const last = page.at(-1);
    return {
      threads: page,
      next_cursor: rows.length > q.limit && last ? `${last.at_us}_${last.id}` : null,
    };
  }

  /**
   * Deletes the tenant's thread and what its runs wrote — the runs and their tasks, the state log
   * and snapshots, tool outputs and receipts, files the runs made, memories learned from them —
   * in one transaction; the runs' metered usage stays (billing), its rows naming a run that no
   * longer exists. 404 for a thread that is not the tenant's; 409 while a run of it is active.
   * Returns the deleted runs' ids (their events are then dropped from Redis).
   */
  async delete(tenantId: string, threadId: string): Promise<string[]> {
    return this.ds.transaction(async (m) => {
      const runs = await endedRuns(await kyselyOfManager(m), tenantId, threadId, 'UPDATE', 'cancel it first');
      await deleteThreads(m, [threadId]);
      return runs.map((r) => r.id);
    });
  }

  /**
   * Keeps only the thread's latest version (LangGraph's prune `keep_latest`): its history folded
   * into one snapshot at the thread's version, the older deltas and snapshots deleted — the state
   * reads as before, the earlier checkpoints can no longer be read or forked from. 404 for a
   * thread that is not the tenant's; 409 while a run of it is active. Answers whether there was
   * history to fold (a thread without versions has none).
   */
  async keepLatest(tenantId: string, threadId: string, states: PgStateSource): Promise<boolean> {
    return this.ds.transaction(async (m) => {
      const db = await kyselyOfManager(m);
      await endedRuns(db, tenantId, threadId, 'UPDATE', 'cancel it first');
      const [{ version }] = await db
        .selectFrom('threads')
        .select('version')
        .where('id', '=', threadId)
        .execute();
      if (version < 1) {
        return false;
      }
      await compactHistory(m, states, threadId, version, 1);
      return true;
    });
  }

  /**
   * Copies the tenant's thread into a new one (`newId`) with the same history: its metadata, title
   * and turns, every version (state_deltas, snapshots) and its runs as records under new ids (the
   * versions name the copies, so a run's actions are never read twice). Refused (409) while a run
   * of it is under way or waiting: a copy holds only ended runs. Memories, files and event streams
   * are not copied.
   */
  async copy(tenantId: string, threadId: string, newId: string): Promise<void> {
    await this.ds.transaction(async (m) => {
      const db = await kyselyOfManager(m);
      const runs = await endedRuns(db, tenantId, threadId, 'SHARE', 'copy it once the run ended');
      const oldIds = runs.map((r) => r.id);
      const newIds = oldIds.map(() => randomUUID());
      await db
        .insertInto('threads')
        .columns(['id', 'tenant_id', 'agent_id', 'version', 'turns', 'snapshot_version', 'title', 'metadata'])
        .expression(
          db
            .selectFrom('threads')
            .select([
              sql<string>`${newId}::uuid`.as('id'),
              'tenant_id',
              'agent_id',
              'version',
              'turns',
              'snapshot_version',
              'title',
              'metadata',
            ])
            .where('id', '=', threadId),
        )
        .execute();
      // Every column of each run, under its new id and thread (a request id stays the original's).
      // Raw SQL: the record round trip through jsonb and the unnest pairing have no builder form.
      await sql`INSERT INTO runs
         SELECT (jsonb_populate_record(NULL::runs,
                   to_jsonb(r) || jsonb_build_object('id', m.new, 'thread_id', ${newId}::uuid, 'request_id', NULL))).*
         FROM runs r JOIN unnest(${oldIds}::uuid[], ${newIds}::uuid[]) AS m(old, new) ON m.old = r.id`.execute(
        db,
      );
      await sql`INSERT INTO state_deltas (thread_id, version, task_id, run_id, node, delta, created_at)
         SELECT ${newId}::uuid, d.version, gen_random_uuid(), coalesce(m.new, d.run_id), d.node, d.delta, d.created_at
         FROM state_deltas d LEFT JOIN unnest(${oldIds}::uuid[], ${newIds}::uuid[]) AS m(old, new) ON m.old = d.run_id
         WHERE d.thread_id = ${threadId}`.execute(db);
      // A snapshot names its thread inside: rewritten as text, so its key order stays.
      const snapshots = await db
        .selectFrom('state_snapshots')
        .select(['version', sql<string>`state::text`.as('state'), 'created_at'])
        .where('thread_id', '=', threadId)
        .execute();
      for (const s of snapshots) {
        const state = JSON.parse(s.state) as Record<string, unknown>;
        state['thread_id'] = newId;
        await db
          .insertInto('state_snapshots')
          .values({
            thread_id: newId,
            version: s.version,
            state: sql<DB['state_snapshots']['state']>`${JSON.stringify(state)}::json`,
            created_at: s.created_at,
          })
          .execute();
      }
    });
  }

  /**
   * Deletes one run of the tenant's thread with its tasks, receipts and files; 409 while it is
   * queued, running or waiting. The versions it wrote stay (the thread's history).
   */
  async deleteRun(tenantId: string, threadId: string, runId: string): Promise<void> {
    await this.ds.transaction(async (m) => {
      const db = await kyselyOfManager(m);
      const run = await db
        .selectFrom('runs')
        .select('status')
        .where('id', '=', runId)
        .where('thread_id', '=', threadId)
        .where('tenant_id', '=', tenantId)
        .forUpdate()
        .executeTakeFirst();
      if (!run) {
        throw ApiException.notFound(`run "${runId}" of thread "${threadId}"`);
      }
      if (['queued', 'running', 'waiting'].includes(run.status)) {
        throw new ApiException(ApiErrorCode.Conflict, `run ${runId} is ${run.status}: cancel it first`);
      }
      await db.deleteFrom('tool_receipts').where('run_id', '=', runId).execute();
      await db.deleteFrom('runs').where('id', '=', runId).execute();
    });
  }

  /** The tenant's thread, or 404 (another tenant's thread is not found either). */
  async threadOrThrow(tenantId: string, threadId: string): Promise<ThreadRecord> {
    const t = await this.db
      .selectFrom('threads')
      .select(THREAD_COLUMNS)
      .where('id', '=', threadId)
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
    if (!t) {
      throw ApiException.notFound('thread');
    }
    return t;
  }

  async runsOf(threadId: string): Promise<RunRecord[]> {
    const rows = await this.db
      .selectFrom('runs')
      .select(RUN_COLUMNS)
      .where('thread_id', '=', threadId)
      .orderBy('created_at')
      .execute();
    return rows.map(runRecord);
  }

  async runAgent(runId: string): Promise<RunAgentRecord> {
    const [r] = await this.db
      .selectFrom('runs')
      .select(['agent_id', 'agent_version_id', 'agent_config'])
      .where('id', '=', runId)
      .execute();
    return r && { ...r, agent_config: r.agent_config as unknown as AgentConfig };
  }

  /** Versions at or below `atMost`, newest first. */
  async versions(threadId: string, atMost: number, limit: number): Promise<VersionRecord[]> {
    // A compacted history (retention, LangGraph's prune keep_latest) starts at a snapshot whose
    // delta is gone: that version is listed too, as the first one left. Raw SQL: a union of the
    // two logs with JSON path reads.
    const { rows } = await sql<VersionRecord>`SELECT * FROM (
         SELECT version, run_id, node, created_at, delta->'action'->'next' AS next,
                CASE WHEN node = 'fork' THEN (delta->'action'->'result'->>'from_version')::int END AS from_version,
                false AS compacted
         FROM state_deltas WHERE thread_id = ${threadId} AND version <= ${atMost}
         UNION ALL
         SELECT s.version, NULL, NULL, s.created_at, NULL, NULL, true FROM state_snapshots s
         WHERE s.thread_id = ${threadId} AND s.version <= ${atMost} AND s.version > 0
           AND NOT EXISTS (SELECT 1 FROM state_deltas d WHERE d.thread_id = ${threadId} AND d.version = s.version)
       ) v ORDER BY version DESC LIMIT ${limit}`.execute(this.db);
    return rows;
  }

  /** The version a branch's `fork` action wrote (once its run started). */
  async forkVersion(runId: string): Promise<number | null> {
    const row = await this.db
      .selectFrom('state_deltas')
      .select('version')
      .where('run_id', '=', runId)
      .where('node', '=', sql.lit('fork'))
      .executeTakeFirst();
    return row?.version ?? null;
  }
}

/**
 * Locks the tenant's thread and its runs (404 when it is not the tenant's) and answers the runs,
 * all of them ended: a run queued, running or waiting is a 409 saying what to do (`remedy`).
 *
 * The runs are read before they are locked, and locked only once all of them are known to have
 * ended. A step of an active run locks its run first and its thread last (the thread's version
 * moves with its COMMIT): waiting here for such a run's lock while holding its thread's would be
 * a deadlock (seen as a 500 on DELETE of a thread whose run had just started). The thread's lock
 * is what keeps the runs as read: no run of it starts (a start locks the thread first) and none is
 * added (a run's foreign key waits for the thread); ended runs stay ended, and the steps a late
 * delta still runs on them never touch the thread.
 */
async function endedRuns(
  db: Db,
  tenantId: string,
  threadId: string,
  lock: 'UPDATE' | 'SHARE',
  remedy: string,
): Promise<{ id: string; status: string }[]> {
  const thread = db
    .selectFrom('threads')
    .select('id')
    .where('id', '=', threadId)
    .where('tenant_id', '=', tenantId);
  if (!(await (lock === 'UPDATE' ? thread.forUpdate() : thread.forShare()).executeTakeFirst())) {
    throw ApiException.notFound('thread');
  }
  const runs = db.selectFrom('runs').select(['id', 'status']).where('thread_id', '=', threadId);
  const rows = await runs.execute();
  const active = rows.find((r) => ['queued', 'running', 'waiting'].includes(r.status));
  if (active) {
    throw new ApiException(
      ApiErrorCode.Conflict,
      `thread ${threadId} has a run that is ${active.status} (${active.id}): ${remedy}`,
    );
  }
  if (rows.length > 0) {
    await (lock === 'UPDATE' ? runs.forUpdate() : runs.forShare()).execute();
  }
  return rows;
}
