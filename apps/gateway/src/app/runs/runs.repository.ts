import { Inject, Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { AgentConfig, RunErrorCode, RunStatus } from '@switchyard/contracts';
import type { RunInput, RunWaiting } from '@switchyard/persistence';
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

const ACTIVE: RunStatus[] = ['queued', 'running', 'waiting'];

const RUN_COLUMNS = `id, tenant_id, thread_id, agent_id, agent_version_id, turn, status, priority, created_at, started_at, finished_at, steps, usage,
              output, error, metadata`;

@Injectable()
export class RunsRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  transaction<T>(work: (m: EntityManager) => Promise<T>): Promise<T> {
    return this.ds.transaction(work);
  }

  /** The tenant's active runs and caps (read without serialising the tenant's creates). */
  async tenantLoad(m: EntityManager, tenantId: string): Promise<TenantLoad> {
    const [load] = (await m.query(
      `SELECT count(*)::int AS active,
              count(*) FILTER (WHERE status IN ('queued', 'running'))::int AS ahead,
              (SELECT max_active_runs FROM tenants WHERE id = $1) AS cap,
              (SELECT max_running_runs FROM tenants WHERE id = $1) AS "runningCap"
       FROM runs WHERE tenant_id = $1 AND status IN ('queued', 'running', 'waiting')`,
      [tenantId],
    )) as TenantLoad[];
    return load;
  }

  /** Whether the tenant's `request_id` made a run already. */
  async requestSeen(m: EntityManager, tenantId: string, requestId: string): Promise<boolean> {
    const rows = (await m.query('SELECT 1 FROM runs WHERE tenant_id = $1 AND request_id = $2', [
      tenantId,
      requestId,
    ])) as unknown[];
    return rows.length > 0;
  }

  /** Locks the tenant's thread for the transaction; false when there is no such thread. */
  async lockThread(m: EntityManager, tenantId: string, threadId: string): Promise<boolean> {
    const [thread] = (await m.query('SELECT id FROM threads WHERE id = $1 AND tenant_id = $2 FOR UPDATE', [
      threadId,
      tenantId,
    ])) as { id: string }[];
    return thread !== undefined;
  }

  async insertThread(m: EntityManager, tenantId: string, threadId: string, agentId: string): Promise<void> {
    await m.query('INSERT INTO threads (id, tenant_id, agent_id) VALUES ($1, $2, $3)', [
      threadId,
      tenantId,
      agentId,
    ]);
  }

  /** Inserts a queued run; undefined when the tenant's request id was seen before (nothing inserted). */
  async insertRun(m: EntityManager, run: NewRun): Promise<InsertedRun | undefined> {
    const inserted = (await m.query(
      `INSERT INTO runs (id, tenant_id, thread_id, agent_id, status, request_id, input, metadata, max_steps,
                       agent_version_id, agent_config, trace_parent, priority, not_before, node_timeouts)
     VALUES ($1, $2, $3, $4, 'queued', $5, $6, $7, $8, $9, $10, $11, $12,
             now() + $13::float8 * interval '1 second', $14)
     ON CONFLICT (tenant_id, request_id) WHERE request_id IS NOT NULL DO NOTHING
     RETURNING id, thread_id, status, created_at`,
      [
        run.id,
        run.tenantId,
        run.threadId,
        run.agentId,
        run.requestId,
        JSON.stringify(run.input),
        JSON.stringify(run.metadata),
        run.maxSteps,
        run.agentVersionId,
        JSON.stringify(run.agentConfig),
        run.traceParent,
        run.priority,
        run.afterSeconds,
        run.nodeTimeouts ? JSON.stringify(run.nodeTimeouts) : null,
      ],
    )) as InsertedRun[];
    return inserted[0];
  }

  /** The ids of the thread's other active runs, oldest first. */
  async otherActiveRuns(m: EntityManager, threadId: string, runId: string): Promise<string[]> {
    const busy = (await m.query(
      `SELECT id FROM runs WHERE thread_id = $1 AND id <> $2 AND status = ANY($3) ORDER BY created_at`,
      [threadId, runId, ACTIVE],
    )) as { id: string }[];
    return busy.map((r) => r.id);
  }

  /** The run the tenant's `request_id` made. */
  async byRequestId(
    tenantId: string,
    requestId: string | undefined,
  ): Promise<{ id: string; thread_id: string; created_at: Date }> {
    const [existing] = (await this.ds.query(
      'SELECT id, thread_id, created_at FROM runs WHERE tenant_id = $1 AND request_id = $2',
      [tenantId, requestId],
    )) as { id: string; thread_id: string; created_at: Date }[];
    return existing;
  }

  /** Flags the runs still active as to be cancelled. */
  async flagCancel(runIds: string[]): Promise<void> {
    await this.ds.query(
      `UPDATE runs SET cancel_requested = true WHERE id = ANY($1::uuid[]) AND status IN ('queued', 'running', 'waiting')`,
      [runIds],
    );
  }

  /** Flags the tenant's run as to be cancelled; false when it is not active (or not the tenant's). */
  async flagCancelOfTenant(tenantId: string, runId: string): Promise<boolean> {
    // TypeORM answers an UPDATE with [rows, affected].
    const [updated] = (await this.ds.query(
      `UPDATE runs SET cancel_requested = true
       WHERE id = $1 AND tenant_id = $2 AND status IN ('queued', 'running', 'waiting')
       RETURNING id`,
      [runId, tenantId],
    )) as [{ id: string }[], number];
    return updated.length > 0;
  }

  /** Fails a run that is still queued, with the error given. */
  async failQueued(runId: string, error: { code: RunErrorCode; message: string }): Promise<void> {
    await this.ds.query(
      `UPDATE runs SET status = 'failed', finished_at = now(), error = $2 WHERE id = $1 AND status = 'queued'`,
      [runId, JSON.stringify(error)],
    );
  }

  /** The tenant's agent with its draft (undefined: none, or deleted). */
  async agentWithDraft(tenantId: string, agentId: string): Promise<{ draft: AgentConfig } | undefined> {
    const [agent] = (await this.ds.query(
      'SELECT draft FROM agents WHERE id = $1 AND tenant_id = $2 AND deleted_at IS NULL',
      [agentId, tenantId],
    )) as { draft: AgentConfig }[];
    return agent;
  }

  /** A version of the agent: the one given, or its latest published one. */
  async agentVersion(
    agentId: string,
    versionId: string | undefined,
  ): Promise<{ id: string; config: AgentConfig } | undefined> {
    const [version] = (await this.ds.query(
      versionId
        ? 'SELECT id, config FROM agent_versions WHERE agent_id = $1 AND id = $2'
        : `SELECT v.id, v.config FROM agents a JOIN agent_versions v ON v.agent_id = a.id
           WHERE a.id = $1 AND v.version = ${latestVersionSql('a')}`,
      versionId ? [agentId, versionId] : [agentId],
    )) as { id: string; config: AgentConfig }[];
    return version;
  }

  /** The tenant's run's status and what it waits for (undefined: no such run). */
  async waitingRun(
    tenantId: string,
    runId: string,
  ): Promise<{ status: RunStatus; waiting: RunWaiting | null } | undefined> {
    const [run] = (await this.ds.query('SELECT status, waiting FROM runs WHERE id = $1 AND tenant_id = $2', [
      runId,
      tenantId,
    ])) as { status: RunStatus; waiting: RunWaiting | null }[];
    return run;
  }

  /** The tasks among these that are still pending. */
  async pendingTasks(taskIds: string[]): Promise<PendingTask[]> {
    return (await this.ds.query(
      `SELECT id, version, trace_parent FROM run_tasks WHERE id = ANY($1::uuid[]) AND status = 'pending'`,
      [taskIds],
    )) as PendingTask[];
  }

  /** The task when it is still pending. */
  async pendingTask(taskId: string): Promise<Omit<PendingTask, 'id'> | undefined> {
    const [task] = (await this.ds.query(
      `SELECT version, trace_parent FROM run_tasks WHERE id = $1 AND status = 'pending'`,
      [taskId],
    )) as Omit<PendingTask, 'id'>[];
    return task;
  }

  /** The tenant's runs waiting for the client's result of call `callId` (at most `limit`). */
  async waitingForClientCall(
    tenantId: string,
    callId: string,
    threadId: string | undefined,
    limit: number,
  ): Promise<ClientCallWaiter[]> {
    return (await this.ds.query(
      `SELECT id, thread_id, agent_id, waiting FROM runs
       WHERE tenant_id = $1 AND status = 'waiting' AND waiting->'client_calls' @> $2::jsonb
         AND ($3::uuid IS NULL OR thread_id = $3::uuid)
       LIMIT $4`,
      [tenantId, JSON.stringify([{ id: callId }]), threadId ?? null, limit],
    )) as ClientCallWaiter[];
  }

  /** What a run waits for (null when it does not). */
  async waitingOf(runId: string): Promise<RunWaiting | null> {
    const [row] = (await this.ds.query('SELECT waiting FROM runs WHERE id = $1', [runId])) as {
      waiting: RunWaiting | null;
    }[];
    return row?.waiting ?? null;
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
    return (await this.ds.query(
      `SELECT ${RUN_COLUMNS}, (extract(epoch FROM created_at) * 1000000)::bigint::text AS at_us
       FROM runs
       WHERE tenant_id = $1
         AND ($2::text[] IS NULL OR status = ANY($2::text[]))
         AND ($3::text IS NULL OR agent_id = $3)
         AND ($4::uuid IS NULL OR thread_id = $4)
         AND ($5::timestamptz IS NULL OR created_at >= $5)
         AND ($6::timestamptz IS NULL OR created_at < $6)
         AND ($7::bigint IS NULL OR (created_at, id) < (to_timestamp($7::bigint / 1000000.0), $8::uuid))
       ORDER BY created_at DESC, id DESC
       LIMIT $9`,
      [
        tenantId,
        q.status ?? null,
        q.agent_id ?? null,
        q.thread_id ?? null,
        q.since ?? null,
        q.until ?? null,
        after.micros,
        after.id,
        limit,
      ],
    )) as (RunRecord & { at_us: string })[];
  }

  /** The tenant's run (undefined: none, or another tenant's). */
  async get(tenantId: string, runId: string): Promise<RunRecord | undefined> {
    const [run] = (await this.ds.query(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = $1 AND tenant_id = $2`, [
      runId,
      tenantId,
    ])) as RunRecord[];
    return run;
  }

  /** The run's metered model calls per model (model_usage, by its run index); [] before any call. */
  async usageByModel(runId: string): Promise<UsageByModel[]> {
    const rows = (await this.ds.query(
      `SELECT model_id, sum(prompt_tokens)::bigint AS prompt_tokens, sum(completion_tokens)::bigint AS completion_tokens,
              sum(total_tokens)::bigint AS total_tokens, sum(cost) AS cost
       FROM model_usage WHERE run_id = $1 GROUP BY model_id ORDER BY min(created_at)`,
      [runId],
    )) as Record<keyof UsageByModel, string | null>[];
    return rows.map((r) => ({
      model_id: r.model_id,
      prompt_tokens: Number(r.prompt_tokens),
      completion_tokens: Number(r.completion_tokens),
      total_tokens: Number(r.total_tokens),
      cost: Number(r.cost),
    }));
  }
}
