import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SecretBox } from '@switchyard/config';
import type { RunStatus } from '@switchyard/contracts';
import type { TaskRun } from './a2a.views';

/** A push notification config as the protocol shows it (the secrets opened). */
export interface PushConfig {
  id: string;
  taskId: string;
  url: string;
  token: string;
  authentication: { scheme: string; credentials: string } | undefined;
}

/** A config whose run has changed since it was last told, with the run's state now. */
export interface DuePush {
  config: PushConfig;
  tenantId: string;
  attempts: number;
  /** The state the notification tells (`status` or `waiting:<task>`): kept as sent on success. */
  state: string;
}

const TASK_RUN = `r.id, r.thread_id, r.status, r.output, r.error, r.created_at, r.started_at, r.finished_at,
  r.input->>'prompt' AS prompt, r.waiting`;

/** When a config is due next after telling `$3`: never again after a final state, else now. */
const NEXT_AT_SQL = `CASE WHEN split_part($3, ':', 1) IN ('succeeded', 'failed', 'cancelled') THEN 'infinity'::timestamptz ELSE now() END`;

/** The state a push notification tells for a run (a new question is a new state). */
export const PUSH_STATE_SQL = `r.status || COALESCE(':' || (r.waiting->>'task_id'), '')`;

/** Runs as A2A tasks, and the tasks' push notification configs. */
@Injectable()
export class A2aRepository {
  constructor(
    @Inject(DataSource) private readonly ds: DataSource,
    @Inject(SecretBox) private readonly box: SecretBox,
  ) {}

  /** The tenant's run of this agent as a task's view needs it (null: not the tenant's or the agent's). */
  async taskRun(tenantId: string, agentId: string, runId: string): Promise<TaskRun | null> {
    const [row] = (await this.ds.query(
      `SELECT ${TASK_RUN} FROM runs r WHERE r.id = $1 AND r.tenant_id = $2 AND r.agent_id = $3`,
      [runId, tenantId, agentId],
    )) as TaskRun[];
    return row ?? null;
  }

  /** A run as its task, whoever's it is (the push delivery, which has the config's run). */
  async taskRunById(runId: string): Promise<TaskRun | null> {
    const [row] = (await this.ds.query(`SELECT ${TASK_RUN} FROM runs r WHERE r.id = $1`, [
      runId,
    ])) as TaskRun[];
    return row ?? null;
  }

  /** The tenant's runs of this agent, newest first, for `ListTasks`. */
  async taskRuns(
    tenantId: string,
    agentId: string,
    q: {
      contextId?: string;
      statuses?: RunStatus[];
      after?: Date;
      /** The keyset of the page's last task: its creation in microseconds since the epoch, and id. */
      before?: { atMicros: string; id: string };
      limit: number;
    },
  ): Promise<(TaskRun & { total: number; at_us: string })[]> {
    return (await this.ds.query(
      `SELECT ${TASK_RUN}, count(*) OVER ()::int AS total,
              (extract(epoch FROM r.created_at) * 1000000)::bigint::text AS at_us
       FROM runs r
       WHERE r.tenant_id = $1 AND r.agent_id = $2
         AND ($3::uuid IS NULL OR r.thread_id = $3::uuid)
         AND ($4::text[] IS NULL OR r.status = ANY($4::text[]))
         AND ($5::timestamptz IS NULL OR COALESCE(r.finished_at, r.started_at, r.created_at) > $5)
         AND ($6::bigint IS NULL OR (r.created_at, r.id) < (to_timestamp($6::bigint / 1000000.0), $7::uuid))
       ORDER BY r.created_at DESC, r.id DESC LIMIT $8`,
      [
        tenantId,
        agentId,
        q.contextId ?? null,
        q.statuses ?? null,
        q.after ?? null,
        q.before?.atMicros ?? null,
        q.before?.id ?? null,
        q.limit,
      ],
    )) as (TaskRun & { total: number; at_us: string })[];
  }

  async savePush(tenantId: string, c: PushConfig): Promise<void> {
    await this.ds.query(
      `INSERT INTO a2a_push_configs (run_id, id, tenant_id, url, token, auth_scheme, auth_credentials)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (run_id, id) DO UPDATE SET url = EXCLUDED.url, token = EXCLUDED.token,
         auth_scheme = EXCLUDED.auth_scheme, auth_credentials = EXCLUDED.auth_credentials,
         sent_state = NULL, attempts = 0, next_at = now(), last_error = NULL`,
      [
        c.taskId,
        c.id,
        tenantId,
        c.url,
        c.token ? this.box.seal(c.token) : null,
        c.authentication?.scheme ?? null,
        c.authentication ? this.box.seal(c.authentication.credentials) : null,
      ],
    );
  }

  async pushConfigs(tenantId: string, runId: string, id?: string): Promise<PushConfig[]> {
    const rows = (await this.ds.query(
      `SELECT run_id, id, url, token, auth_scheme, auth_credentials FROM a2a_push_configs
       WHERE tenant_id = $1 AND run_id = $2 AND ($3::text IS NULL OR id = $3) ORDER BY created_at, id`,
      [tenantId, runId, id ?? null],
    )) as PushRow[];
    return rows.map((r) => this.configOf(r));
  }

  async deletePush(tenantId: string, runId: string, id: string): Promise<boolean> {
    const [, count] = (await this.ds.query(
      'DELETE FROM a2a_push_configs WHERE tenant_id = $1 AND run_id = $2 AND id = $3',
      [tenantId, runId, id],
    )) as [unknown, number];
    return count > 0;
  }

  /**
   * Claims the configs whose run's state differs from what they last told, for `leaseMs`:
   * replicas share them (SKIP LOCKED); one whose sender died is taken again after its lease.
   */
  async claimDue(limit: number, leaseMs: number): Promise<DuePush[]> {
    const [rows] = (await this.ds.query(
      `WITH due AS (
         SELECT p.run_id, p.id, ${PUSH_STATE_SQL} AS state FROM a2a_push_configs p JOIN runs r ON r.id = p.run_id
         WHERE p.next_at <= now() AND p.sent_state IS DISTINCT FROM ${PUSH_STATE_SQL}
         ORDER BY p.next_at LIMIT $1 FOR UPDATE OF p SKIP LOCKED)
       UPDATE a2a_push_configs p SET next_at = now() + $2 * interval '1 millisecond'
       FROM due WHERE p.run_id = due.run_id AND p.id = due.id
       RETURNING p.run_id, p.id, p.tenant_id, p.url, p.token, p.auth_scheme, p.auth_credentials, p.attempts, due.state`,
      [limit, leaseMs],
    )) as [(PushRow & { tenant_id: string; attempts: number; state: string })[], number];
    return rows.map((r) => ({
      config: this.configOf(r),
      tenantId: r.tenant_id,
      attempts: r.attempts,
      state: r.state,
    }));
  }

  /** Told: once the task's last state was, the config is never due again. */
  async pushed(runId: string, id: string, state: string): Promise<void> {
    await this.ds.query(
      `UPDATE a2a_push_configs SET sent_state = $3, attempts = 0, last_error = NULL, next_at = ${NEXT_AT_SQL}
       WHERE run_id = $1 AND id = $2`,
      [runId, id, state],
    );
  }

  /** A failed notification: tried again after `retryInMs`, or given up on for this state (null). */
  async pushFailed(
    runId: string,
    id: string,
    state: string,
    error: string,
    retryInMs: number | null,
  ): Promise<void> {
    await this.ds.query(
      retryInMs === null
        ? `UPDATE a2a_push_configs SET sent_state = $3, attempts = 0, last_error = $4, next_at = ${NEXT_AT_SQL}
           WHERE run_id = $1 AND id = $2`
        : `UPDATE a2a_push_configs SET attempts = attempts + 1, last_error = $3,
             next_at = now() + $4 * interval '1 millisecond'
           WHERE run_id = $1 AND id = $2`,
      retryInMs === null ? [runId, id, state, error] : [runId, id, error, retryInMs],
    );
  }

  private configOf(r: PushRow): PushConfig {
    return {
      id: r.id,
      taskId: r.run_id,
      url: r.url,
      token: r.token ? this.box.open(r.token) : '',
      authentication:
        r.auth_scheme && r.auth_credentials
          ? { scheme: r.auth_scheme, credentials: this.box.open(r.auth_credentials) }
          : undefined,
    };
  }
}

interface PushRow {
  run_id: string;
  id: string;
  url: string;
  token: string | null;
  auth_scheme: string | null;
  auth_credentials: string | null;
}
