import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { AgentConfig } from '@switchyard/contracts';
import { type PgStateSource, compactHistory, deleteThreads } from '@switchyard/persistence';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import type { RunRecord } from '../runs/runs.repository';

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

/** The queries of Switchyard's thread resources (the controllers hold no SQL). */
@Injectable()
export class ThreadsRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  /** The tenant's threads, newest first, a page at a time (keyset on created_at, id). */
  async list(
    tenantId: string,
    q: { agent_id?: string; since?: string; until?: string; limit: number; cursor?: string },
  ): Promise<{ threads: ThreadRecord[]; next_cursor: string | null }> {
    const [micros, id] = q.cursor ? q.cursor.split('_') : [null, null];
    const rows = (await this.ds.query(
      `SELECT id, agent_id, created_at, turns, version, active_run_id, title,
              (extract(epoch FROM created_at) * 1000000)::bigint::text AS at_us
       FROM threads
       WHERE tenant_id = $1
         AND ($2::text IS NULL OR agent_id = $2)
         AND ($3::timestamptz IS NULL OR created_at >= $3)
         AND ($4::timestamptz IS NULL OR created_at < $4)
         AND ($5::bigint IS NULL OR (created_at, id) < (to_timestamp($5::bigint / 1000000.0), $6::uuid))
       ORDER BY created_at DESC, id DESC
       LIMIT $7`,
      [tenantId, q.agent_id ?? null, q.since ?? null, q.until ?? null, micros, id, q.limit + 1],
    )) as (ThreadRecord & { at_us: string })[];
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
      const runs = await endedRuns(m, tenantId, threadId, 'UPDATE', 'cancel it first');
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
      await endedRuns(m, tenantId, threadId, 'UPDATE', 'cancel it first');
      const [{ version }] = (await m.query('SELECT version FROM threads WHERE id = $1', [threadId])) as {
        version: number;
      }[];
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
      const runs = await endedRuns(m, tenantId, threadId, 'SHARE', 'copy it once the run ended');
      const oldIds = runs.map((r) => r.id);
      const newIds = oldIds.map(() => randomUUID());
      await m.query(
        `INSERT INTO threads (id, tenant_id, agent_id, version, turns, snapshot_version, title, metadata)
         SELECT $2, tenant_id, agent_id, version, turns, snapshot_version, title, metadata FROM threads WHERE id = $1`,
        [threadId, newId],
      );
      // Every column of each run, under its new id and thread (a request id stays the original's).
      await m.query(
        `INSERT INTO runs
         SELECT (jsonb_populate_record(NULL::runs,
                   to_jsonb(r) || jsonb_build_object('id', m.new, 'thread_id', $1::uuid, 'request_id', NULL))).*
         FROM runs r JOIN unnest($2::uuid[], $3::uuid[]) AS m(old, new) ON m.old = r.id`,
        [newId, oldIds, newIds],
      );
      await m.query(
        `INSERT INTO state_deltas (thread_id, version, task_id, run_id, node, delta, created_at)
         SELECT $2, d.version, gen_random_uuid(), coalesce(m.new, d.run_id), d.node, d.delta, d.created_at
         FROM state_deltas d LEFT JOIN unnest($3::uuid[], $4::uuid[]) AS m(old, new) ON m.old = d.run_id
         WHERE d.thread_id = $1`,
        [threadId, newId, oldIds, newIds],
      );
      // A snapshot names its thread inside: rewritten as text, so its key order stays.
      const snapshots = (await m.query(
        'SELECT version, state::text AS state, created_at FROM state_snapshots WHERE thread_id = $1',
        [threadId],
      )) as { version: number; state: string; created_at: Date }[];
      for (const s of snapshots) {
        const state = JSON.parse(s.state) as Record<string, unknown>;
        state['thread_id'] = newId;
        await m.query(
          'INSERT INTO state_snapshots (thread_id, version, state, created_at) VALUES ($1, $2, $3::json, $4)',
          [newId, s.version, JSON.stringify(state), s.created_at],
        );
      }
    });
  }

  /**
   * Deletes one run of the tenant's thread with its tasks, receipts and files; 409 while it is
   * queued, running or waiting. The versions it wrote stay (the thread's history).
   */
  async deleteRun(tenantId: string, threadId: string, runId: string): Promise<void> {
    await this.ds.transaction(async (m) => {
      const [run] = (await m.query(
        'SELECT status FROM runs WHERE id = $1 AND thread_id = $2 AND tenant_id = $3 FOR UPDATE',
        [runId, threadId, tenantId],
      )) as { status: string }[];
      if (!run) {
        throw ApiException.notFound(`run "${runId}" of thread "${threadId}"`);
      }
      if (['queued', 'running', 'waiting'].includes(run.status)) {
        throw new ApiException(ApiErrorCode.Conflict, `run ${runId} is ${run.status}: cancel it first`);
      }
      await m.query('DELETE FROM tool_receipts WHERE run_id = $1', [runId]);
      await m.query('DELETE FROM runs WHERE id = $1', [runId]);
    });
  }

  /** The tenant's thread, or 404 (another tenant's thread is not found either). */
  async threadOrThrow(tenantId: string, threadId: string): Promise<ThreadRecord> {
    const [t] = (await this.ds.query(
      'SELECT id, agent_id, created_at, turns, version, active_run_id, title FROM threads WHERE id = $1 AND tenant_id = $2',
      [threadId, tenantId],
    )) as ThreadRecord[];
    if (!t) {
      throw ApiException.notFound('thread');
    }
    return t;
  }

  async runsOf(threadId: string): Promise<RunRecord[]> {
    return (await this.ds.query(
      `SELECT id, tenant_id, thread_id, agent_id, agent_version_id, turn, status, priority, created_at, started_at, finished_at, steps, usage,
              output, error, metadata
       FROM runs WHERE thread_id = $1 ORDER BY created_at`,
      [threadId],
    )) as RunRecord[];
  }

  async runAgent(runId: string): Promise<RunAgentRecord> {
    const [r] = (await this.ds.query(
      'SELECT agent_id, agent_version_id, agent_config FROM runs WHERE id = $1',
      [runId],
    )) as RunAgentRecord[];
    return r;
  }

  /** Versions at or below `atMost`, newest first. */
  async versions(threadId: string, atMost: number, limit: number): Promise<VersionRecord[]> {
    // A compacted history (retention, LangGraph's prune keep_latest) starts at a snapshot whose
    // delta is gone: that version is listed too, as the first one left.
    return (await this.ds.query(
      `SELECT * FROM (
         SELECT version, run_id, node, created_at, delta->'action'->'next' AS next,
                CASE WHEN node = 'fork' THEN (delta->'action'->'result'->>'from_version')::int END AS from_version,
                false AS compacted
         FROM state_deltas WHERE thread_id = $1 AND version <= $2
         UNION ALL
         SELECT s.version, NULL, NULL, s.created_at, NULL, NULL, true FROM state_snapshots s
         WHERE s.thread_id = $1 AND s.version <= $2 AND s.version > 0
           AND NOT EXISTS (SELECT 1 FROM state_deltas d WHERE d.thread_id = $1 AND d.version = s.version)
       ) v ORDER BY version DESC LIMIT $3`,
      [threadId, atMost, limit],
    )) as VersionRecord[];
  }

  /** The version a branch's `fork` action wrote (once its run started). */
  async forkVersion(runId: string): Promise<number | null> {
    const [row] = (await this.ds.query(
      `SELECT version FROM state_deltas WHERE run_id = $1 AND node = 'fork'`,
      [runId],
    )) as { version: number }[];
    return row?.version ?? null;
  }
}

/**
 * Locks the tenant's thread and its runs (404 when it is not the tenant's) and answers the runs,
 * all of them ended: a run queued, running or waiting is a 409 saying what to do (`remedy`).
 */
async function endedRuns(
  m: EntityManager,
  tenantId: string,
  threadId: string,
  lock: 'UPDATE' | 'SHARE',
  remedy: string,
): Promise<{ id: string; status: string }[]> {
  const [thread] = (await m.query(`SELECT id FROM threads WHERE id = $1 AND tenant_id = $2 FOR ${lock}`, [
    threadId,
    tenantId,
  ])) as { id: string }[];
  if (!thread) {
    throw ApiException.notFound('thread');
  }
  const runs = (await m.query(`SELECT id, status FROM runs WHERE thread_id = $1 FOR ${lock}`, [
    threadId,
  ])) as {
    id: string;
    status: string;
  }[];
  const active = runs.find((r) => ['queued', 'running', 'waiting'].includes(r.status));
  if (active) {
    throw new ApiException(
      ApiErrorCode.Conflict,
      `thread ${threadId} has a run that is ${active.status} (${active.id}): ${remedy}`,
    );
  }
  return runs;
}
