import { Inject, Injectable } from '@nestjs/common';
import { type Expression, type Selectable, type SqlBool, sql } from 'kysely';
import { DataSource, type EntityManager } from 'typeorm';
import type { AgentConfig, RunErrorCode, RunStatus } from '@switchyard/contracts';
import {
  type DB,
  type Db,
  type RunInput,
  type RunWaiting,
  executePrepared,
  kyselyOf,
  kyselyOfManager,
} from '@switchyard/persistence';
import { latestVersionSql } from '../agents/agents.repository';
import type { ListRunsQuery, RunPriority } from './run.dto';

// The SQL of /v1/runs: the runs, their threads, tasks and metered usage as the gateway reads and
// writes them. No decisions here (runs.service.ts and the use cases make them).

export interface RunRecord {
  id: string;
  tenant_id: string;
  thread_id: string;
  agent_id: string;
  /** The agent version the run pinned (null: the built-in agent, or a draft). */
  agent_version_id: string | null;
  turn: number | null;
  status: RunStatus;
  /** Dispatch priority within the tenant (runs.priority). */
  priority: RunPriority;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  steps: number;
  usage: unknown;
  output: unknown;
  error: unknown;
  metadata: unknown;
}

export interface UsageByModel {
  model_id: string | null;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cost: number;
}

/** A tenant's active runs against its caps (null caps: the deployment's defaults apply). */
export interface TenantLoad {
  /** Queued, running or waiting. */
  active: number;
  /** Queued or running: ahead of a new run in the tenant's dispatch. */
  ahead: number;
  cap: number | null;
  runningCap: number | null;
}

/** The columns of a new run's row. */
export interface NewRun {
  id: string;
  tenantId: string;
  threadId: string;
  agentId: string;
  requestId: string | null;
  input: RunInput;
  metadata: unknown;
  maxSteps: AgentConfig['max_steps'];
  agentVersionId: string | null;
  agentConfig: AgentConfig;
  traceParent: string | null;
  priority: RunPriority;
  /** Seconds from now before it may start (null: at once). */
  afterSeconds: number | null;
  nodeTimeouts: AgentConfig['node_timeouts_ms'] | null;
}

export interface InsertedRun {
  id: string;
  thread_id: string;
  status: RunStatus;
  created_at: Date;
}

/**
 * A new run's row (absent: not inserted — the tenant was at its cap, or the request id was seen),
 * the tenant's load before it and the thread's other active runs (oldest first).
 */
export interface CreatedRunRow {
  row?: InsertedRun;
  load: TenantLoad;
  busy: string[];
}

/** A pending task of a run, with the version its answer is based on. */
export interface PendingTask {
  id: string;
  version: number;
  trace_parent: string | null;
}

export interface ClientCallWaiter {
  id: string;
  thread_id: string;
  agent_id: string;
  waiting: RunWaiting;
}

// The statuses of a run not yet over, written as literals (the predicate of runs_tenant_active_idx).
const ACTIVE = [sql.lit('queued'), sql.lit('running'), sql.lit('waiting')];

/** The columns of a run as /v1/runs shows it (threadsRepository.runsOf reads the same). */
export const RUN_COLUMNS = [
  'id',
  'tenant_id',
  'thread_id',
  'agent_id',
  'agent_version_id',
  'turn',
  'status',
  'priority',
  'created_at',
  'started_at',
  'finished_at',
  'steps',
  'usage',
  'output',
  'error',
  'metadata',
] as const;

/** A runs row as read (RUN_COLUMNS), its status and priority narrowed to their domain values. */
export function runRecord(r: Pick<Selectable<DB['runs']>, (typeof RUN_COLUMNS)[number]>): RunRecord {
  return { ...r, status: r.status as RunStatus, priority: r.priority as RunPriority };
}

/** A row's keyset time in microseconds since the epoch, as text (a page cursor's first half). */
export const atMicros = sql<string>`(extract(epoch FROM created_at) * 1000000)::bigint::text`.as('at_us');

/** Rows before the keyset (`micros`, `id`) in (created_at, id) order: the next page's filter. */
export const beforeKeyset = (micros: string, id: string | null): Expression<SqlBool> =>
  sql<SqlBool>`(created_at, id) < (to_timestamp(${micros}::bigint / 1000000.0), ${id}::uuid)`;

@Injectable()
export class RunsRepository {
  private readonly db: Db;

  constructor(@Inject(DataSource) private readonly ds: DataSource) {
    this.db = kyselyOf(ds);
  }

  transaction<T>(work: (m: EntityManager) => Promise<T>): Promise<T> {
    return this.ds.transaction(work);
  }

  /** `work`'s statements each on its own (autocommit): for work that is one statement. */
  alone<T>(work: (m: EntityManager) => Promise<T>): Promise<T> {
    return work(this.ds.manager);
  }

  /** Locks the tenant's thread for the transaction; false when there is no such thread. */
  async lockThread(m: EntityManager, tenantId: string, threadId: string): Promise<boolean> {
    const db = await kyselyOfManager(m);
    const thread = await db
      .selectFrom('threads')
      .select('id')
      .where('id', '=', threadId)
      .where('tenant_id', '=', tenantId)
      .forUpdate()
      .executeTakeFirst();
    return thread !== undefined;
  }

  /** Whether the tenant's `request_id` made a run already. */
  async requestSeen(m: EntityManager, tenantId: string, requestId: string): Promise<boolean> {
    const db = await kyselyOfManager(m);
    const rows = await db
      .selectFrom('runs')
      .select(sql.lit(1).as('seen'))
      .where('tenant_id', '=', tenantId)
      .where('request_id', '=', requestId)
      .execute();
    return rows.length > 0;
  }

  /**
   * Inserts a queued run — and its thread, when `newThread` — in ONE statement that also answers
   * what the caller decides on: the tenant's load and the thread's other active runs as they were
   * before this run (every part of a statement reads the snapshot it began with, so neither counts
   * the row it inserts). Nothing is inserted when the tenant is at its cap of active runs (its own,
   * else `defaultCap`): `row` is then absent, as it is when the tenant's request id was seen before
   * (the thread made for it goes once the caller rolls back). One round trip where the load, the
   * thread and the run took three (tools/bench/PROFILE.md, round 11).
   */
  async insertRun(
    m: EntityManager,
    run: NewRun,
    opts: { newThread: boolean; defaultCap: number },
  ): Promise<CreatedRunRow> {
    const db = await kyselyOfManager(m);
    const admitted = sql`load.active < coalesce(load.cap, ${opts.defaultCap}::int)`;
    const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));
    // The statuses are literals: the predicate of runs_tenant_active_idx.
    const { rows } = await sql<{
      active: number;
      ahead: number;
      cap: number | null;
      running_cap: number | null;
      busy: string[];
      id: string | null;
      thread_id: string | null;
      status: string | null;
      created_at: Date | null;
    }>`
      WITH load AS (
        SELECT (SELECT count(*)::int FROM runs
                 WHERE tenant_id = ${run.tenantId}::uuid AND status IN ('queued', 'running', 'waiting')) AS active,
               (SELECT count(*)::int FROM runs
                 WHERE tenant_id = ${run.tenantId}::uuid AND status IN ('queued', 'running')) AS ahead,
               t.max_active_runs AS cap, t.max_running_runs AS running_cap
          FROM tenants t WHERE t.id = ${run.tenantId}::uuid
      ), new_thread AS (
        INSERT INTO threads (id, tenant_id, agent_id)
        SELECT ${run.threadId}::uuid, ${run.tenantId}::uuid, ${run.agentId}::text
          FROM load WHERE ${opts.newThread}::boolean AND ${admitted}
        RETURNING id
      ), made AS (
        INSERT INTO runs (id, tenant_id, thread_id, agent_id, status, request_id, input, metadata, max_steps,
                          agent_version_id, agent_config, trace_parent, priority, not_before, node_timeouts)
        SELECT ${run.id}::uuid, ${run.tenantId}::uuid, ${run.threadId}::uuid, ${run.agentId}::text, 'queued',
               ${run.requestId}::text, ${json(run.input)}::jsonb, ${json(run.metadata)}::jsonb,
               ${run.maxSteps}::int, ${run.agentVersionId}::uuid, ${json(run.agentConfig)}::jsonb,
               ${run.traceParent}::text, ${run.priority}::text,
               now() + ${run.afterSeconds}::float8 * interval '1 second', ${json(run.nodeTimeouts)}::jsonb
          FROM load WHERE ${admitted}
        ON CONFLICT (tenant_id, request_id) WHERE request_id IS NOT NULL DO NOTHING
        RETURNING id, thread_id, status, created_at
      )
      SELECT load.active, load.ahead, load.cap, load.running_cap,
             (SELECT coalesce(array_agg(b.id ORDER BY b.created_at), '{}') FROM runs b
               WHERE b.thread_id = ${run.threadId}::uuid AND b.status IN ('queued', 'running', 'waiting')) AS busy,
             made.id, made.thread_id, made.status, made.created_at
        FROM load LEFT JOIN made ON true`.execute(db);
    const [out] = rows;
    if (!out) {
      throw new Error(`tenant ${run.tenantId} not found`);
    }
    return {
      row:
        out.id && out.thread_id && out.created_at
          ? {
              id: out.id,
              thread_id: out.thread_id,
              status: out.status as RunStatus,
              created_at: out.created_at,
            }
          : undefined,
      load: { active: out.active, ahead: out.ahead, cap: out.cap, runningCap: out.running_cap },
      busy: out.busy,
    };
  }

  /** The run the tenant's `request_id` made. */
  async byRequestId(
    tenantId: string,
    requestId: string | undefined,
  ): Promise<{ id: string; thread_id: string; created_at: Date }> {
    const [existing] = await this.db
      .selectFrom('runs')
      .select(['id', 'thread_id', 'created_at'])
      .where('tenant_id', '=', tenantId)
      .where('request_id', '=', requestId ?? null)
      .execute();
    return existing;
  }

  /** Flags the runs still active as to be cancelled. */
  async flagCancel(runIds: string[]): Promise<void> {
    await this.db
      .updateTable('runs')
      .set({ cancel_requested: true })
      .where('id', '=', sql<string>`ANY(${runIds}::uuid[])`)
      .where('status', 'in', ACTIVE)
      .execute();
  }

  /** Flags the tenant's run as to be cancelled; false when it is not active (or not the tenant's). */
  async flagCancelOfTenant(tenantId: string, runId: string): Promise<boolean> {
    const updated = await this.db
      .updateTable('runs')
      .set({ cancel_requested: true })
      .where('id', '=', runId)
      .where('tenant_id', '=', tenantId)
      .where('status', 'in', ACTIVE)
      .returning('id')
      .execute();
    return updated.length > 0;
  }

  /** Fails a run that is still queued, with the error given. */
  async failQueued(runId: string, error: { code: RunErrorCode; message: string }): Promise<void> {
    await this.db
      .updateTable('runs')
      .set({ status: sql.lit('failed'), finished_at: sql<Date>`now()`, error: JSON.stringify(error) })
      .where('id', '=', runId)
      .where('status', '=', sql.lit('queued'))
      .execute();
  }

  /** The tenant's agent with its draft (undefined: none, or deleted). */
  async agentWithDraft(tenantId: string, agentId: string): Promise<{ draft: AgentConfig } | undefined> {
    const agent = await this.db
      .selectFrom('agents')
      .select('draft')
      .where('id', '=', agentId)
      .where('tenant_id', '=', tenantId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return agent && { draft: agent.draft as unknown as AgentConfig };
  }

  /** A version of the agent: the one given, or its latest published one. */
  async agentVersion(
    agentId: string,
    versionId: string | undefined,
  ): Promise<{ id: string; config: AgentConfig } | undefined> {
    const version = versionId
      ? await this.db
          .selectFrom('agent_versions')
          .select(['id', 'config'])
          .where('agent_id', '=', agentId)
          .where('id', '=', versionId)
          .executeTakeFirst()
      : await this.db
          .selectFrom('agents as a')
          .innerJoin('agent_versions as v', 'v.agent_id', 'a.id')
          .select(['v.id', 'v.config'])
          .where('a.id', '=', agentId)
          .where('v.version', '=', sql.raw<number>(latestVersionSql('a')))
          .executeTakeFirst();
    return version && { id: version.id, config: version.config as unknown as AgentConfig };
  }

  /** The tenant's run's status and what it waits for (undefined: no such run). */
  async waitingRun(
    tenantId: string,
    runId: string,
  ): Promise<{ status: RunStatus; waiting: RunWaiting | null } | undefined> {
    const run = await this.db
      .selectFrom('runs')
      .select(['status', 'waiting'])
      .where('id', '=', runId)
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
    return run && { status: run.status as RunStatus, waiting: run.waiting as unknown as RunWaiting | null };
  }

  /** The tasks among these that are still pending. */
  async pendingTasks(taskIds: string[]): Promise<PendingTask[]> {
    return this.db
      .selectFrom('run_tasks')
      .select(['id', 'version', 'trace_parent'])
      .where('id', '=', sql<string>`ANY(${taskIds}::uuid[])`)
      .where('status', '=', sql.lit('pending'))
      .execute();
  }

  /** The task when it is still pending. */
  async pendingTask(taskId: string): Promise<Omit<PendingTask, 'id'> | undefined> {
    return this.db
      .selectFrom('run_tasks')
      .select(['version', 'trace_parent'])
      .where('id', '=', taskId)
      .where('status', '=', sql.lit('pending'))
      .executeTakeFirst();
  }

  /** The tenant's runs waiting for the client's result of call `callId` (at most `limit`). */
  async waitingForClientCall(
    tenantId: string,
    callId: string,
    threadId: string | undefined,
    limit: number,
  ): Promise<ClientCallWaiter[]> {
    let q = this.db
      .selectFrom('runs')
      .select(['id', 'thread_id', 'agent_id', 'waiting'])
      .where('tenant_id', '=', tenantId)
      .where('status', '=', sql.lit('waiting'))
      .where(sql<SqlBool>`waiting->'client_calls' @> ${JSON.stringify([{ id: callId }])}::jsonb`);
    if (threadId !== undefined) {
      q = q.where('thread_id', '=', threadId);
    }
    const rows = await q.limit(limit).execute();
    return rows.map((r) => ({ ...r, waiting: r.waiting as unknown as RunWaiting }));
  }

  /** What a run waits for (null when it does not). */
  async waitingOf(runId: string): Promise<RunWaiting | null> {
    const row = await this.db.selectFrom('runs').select('waiting').where('id', '=', runId).executeTakeFirst();
    return (row?.waiting as unknown as RunWaiting | null | undefined) ?? null;
  }

  /**
   * The tenant's runs, newest first, matching the filters; `limit` rows after the keyset
   * (`micros`, `id`) of the previous page's last one. Each row carries `at_us`, its keyset time.
   */
  async page(
    tenantId: string,
    q: Omit<ListRunsQuery, 'cursor' | 'limit'>,
    after: { micros: string | null; id: string | null },
    limit: number,
  ): Promise<(RunRecord & { at_us: string })[]> {
    let query = this.db
      .selectFrom('runs')
      .select([...RUN_COLUMNS, atMicros])
      .where('tenant_id', '=', tenantId);
    if (q.status !== undefined) {
      query = query.where('status', '=', sql<string>`ANY(${q.status}::text[])`);
    }
    if (q.agent_id !== undefined) {
      query = query.where('agent_id', '=', q.agent_id);
    }
    if (q.thread_id !== undefined) {
      query = query.where('thread_id', '=', q.thread_id);
    }
    if (q.since !== undefined) {
      query = query.where('created_at', '>=', sql<Date>`${q.since}::timestamptz`);
    }
    if (q.until !== undefined) {
      query = query.where('created_at', '<', sql<Date>`${q.until}::timestamptz`);
    }
    if (after.micros !== null) {
      query = query.where(beforeKeyset(after.micros, after.id));
    }
    const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
    return rows.map((r) => ({ ...runRecord(r), at_us: r.at_us }));
  }

  /** The tenant's run (undefined: none, or another tenant's). */
  async get(tenantId: string, runId: string): Promise<RunRecord | undefined> {
    // Prepared once per connection: every event stream's request reads its run first.
    const [run] = await executePrepared(
      this.ds,
      this.db
        .selectFrom('runs')
        .select(RUN_COLUMNS)
        .where('id', '=', runId)
        .where('tenant_id', '=', tenantId),
    );
    return run && runRecord(run);
  }

  /** The run's metered model calls per model (model_usage, by its run index); [] before any call. */
  async usageByModel(runId: string): Promise<UsageByModel[]> {
    const rows = await this.db
      .selectFrom('model_usage')
      .select([
        'model_id',
        sql<string>`sum(prompt_tokens)::bigint`.as('prompt_tokens'),
        sql<string>`sum(completion_tokens)::bigint`.as('completion_tokens'),
        sql<string>`sum(total_tokens)::bigint`.as('total_tokens'),
        sql<string>`sum(cost)`.as('cost'),
      ])
      .where('run_id', '=', runId)
      .groupBy('model_id')
      .orderBy(sql`min(created_at)`)
      .execute();
    return rows.map((r) => ({
      model_id: r.model_id,
      prompt_tokens: Number(r.prompt_tokens),
      completion_tokens: Number(r.completion_tokens),
      total_tokens: Number(r.total_tokens),
      cost: Number(r.cost),
    }));
  }
}
