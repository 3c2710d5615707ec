import { Inject, Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { DataSource } from 'typeorm';
import { SecretBox } from '@switchyard/config';
import type { RunStatus } from '@switchyard/contracts';
import { type Db, kyselyOf, type RunWaiting } from '@switchyard/persistence';
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

/** A run's columns as its task shows them (`prompt`: the input's, as text). */
function selectTaskRun(db: Db) {
  return db
    .selectFrom('runs as r')
    .select([
      'r.id',
      'r.thread_id',
      'r.status',
      'r.output',
      'r.error',
      'r.created_at',
      'r.started_at',
      'r.finished_at',
      sql<string>`r.input->>'prompt'`.as('prompt'),
      'r.waiting',
    ]);
}

/** `status` and `waiting` narrowed once to what the orchestrator writes there. */
function taskRunOf<R extends { status: string; waiting: unknown }>(
  r: R,
): Omit<R, 'status' | 'waiting'> & Pick<TaskRun, 'status' | 'waiting'> {
  return { ...r, status: r.status as RunStatus, waiting: r.waiting as RunWaiting | null };
}

/** `ms` milliseconds from now (the parameter multiplies an interval, as it always did). */
const inMs = (ms: number) => sql<Date>`now() + ${ms} * interval '1 millisecond'`;

/** When a config is due next after telling `state`: never again after a final state, else now. */
const nextAfter = (state: string) =>
  sql<Date>`CASE WHEN split_part(${state}, ':', 1) IN ('succeeded', 'failed', 'cancelled') THEN 'infinity'::timestamptz ELSE now() END`;

/** The state a push notification tells for a run (a new question is a new state). */
export const PUSH_STATE_SQL = `r.status || COALESCE(':' || (r.waiting->>'task_id'), '')`;
const pushState = sql.raw<string>(PUSH_STATE_SQL);

const PUSH_COLUMNS = ['run_id', 'id', 'url', 'token', 'auth_scheme', 'auth_credentials'] as const;

/** Runs as A2A tasks, and the tasks' push notification configs. */
@Injectable()
export class A2aRepository {
  private readonly db: Db;

  constructor(
    @Inject(DataSource) ds: DataSource,
    @Inject(SecretBox) private readonly box: SecretBox,
  ) {
    this.db = kyselyOf(ds);
  }

  /** The tenant's run of this agent as a task's view needs it (null: not the tenant's or the agent's). */
  async taskRun(tenantId: string, agentId: string, runId: string): Promise<TaskRun | null> {
    const row = await selectTaskRun(this.db)
      .where('r.id', '=', runId)
      .where('r.tenant_id', '=', tenantId)
      .where('r.agent_id', '=', agentId)
      .executeTakeFirst();
    return row ? taskRunOf(row) : null;
  }

  /** A run as its task, whoever's it is (the push delivery, which has the config's run). */
  async taskRunById(runId: string): Promise<TaskRun | null> {
    const row = await selectTaskRun(this.db).where('r.id', '=', runId).executeTakeFirst();
    return row ? taskRunOf(row) : null;
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
    let query = selectTaskRun(this.db)
      .select([
        sql<number>`count(*) OVER ()::int`.as('total'),
        sql<string>`(extract(epoch FROM r.created_at) * 1000000)::bigint::text`.as('at_us'),
      ])
      .where('r.tenant_id', '=', tenantId)
      .where('r.agent_id', '=', agentId);
    if (q.contextId !== undefined) {
      query = query.where('r.thread_id', '=', sql<string>`${q.contextId}::uuid`);
    }
    if (q.statuses !== undefined) {
      // `= ANY`: an empty list matches nothing (as it always did), where `IN ()` would not parse.
      query = query.where('r.status', '=', sql<string>`ANY(${q.statuses}::text[])`);
    }
    if (q.after !== undefined) {
      const after = q.after;
      query = query.where((eb) =>
        eb(eb.fn.coalesce('r.finished_at', 'r.started_at', 'r.created_at'), '>', after),
      );
    }
    if (q.before !== undefined) {
      query = query.where(
        sql<boolean>`(r.created_at, r.id) < (to_timestamp(${q.before.atMicros}::bigint / 1000000.0), ${q.before.id}::uuid)`,
      );
    }
    const rows = await query.orderBy('r.created_at', 'desc').orderBy('r.id', 'desc').limit(q.limit).execute();
    return rows.map(taskRunOf);
  }

  async savePush(tenantId: string, c: PushConfig): Promise<void> {
    await this.db
      .insertInto('a2a_push_configs')
      .values({
        run_id: c.taskId,
        id: c.id,
        tenant_id: tenantId,
        url: c.url,
        token: c.token ? this.box.seal(c.token) : null,
        auth_scheme: c.authentication?.scheme ?? null,
        auth_credentials: c.authentication ? this.box.seal(c.authentication.credentials) : null,
      })
      .onConflict((oc) =>
        oc.columns(['run_id', 'id']).doUpdateSet((eb) => ({
          url: eb.ref('excluded.url'),
          token: eb.ref('excluded.token'),
          auth_scheme: eb.ref('excluded.auth_scheme'),
          auth_credentials: eb.ref('excluded.auth_credentials'),
          sent_state: null,
          attempts: 0,
          next_at: sql<Date>`now()`,
          last_error: null,
        })),
      )
      .execute();
  }

  async pushConfigs(tenantId: string, runId: string, id?: string): Promise<PushConfig[]> {
    let query = this.db
      .selectFrom('a2a_push_configs')
      .select(PUSH_COLUMNS)
      .where('tenant_id', '=', tenantId)
      .where('run_id', '=', runId);
    if (id !== undefined) {
      query = query.where('id', '=', id);
    }
    const rows = await query.orderBy('created_at').orderBy('id').execute();
    return rows.map((r) => this.configOf(r));
  }

  async deletePush(tenantId: string, runId: string, id: string): Promise<boolean> {
    const { numDeletedRows } = await this.db
      .deleteFrom('a2a_push_configs')
      .where('tenant_id', '=', tenantId)
      .where('run_id', '=', runId)
      .where('id', '=', id)
      .executeTakeFirst();
    return numDeletedRows > 0n;
  }

  /**
   * Claims the configs whose run's state differs from what they last told, for `leaseMs`:
   * replicas share them (SKIP LOCKED); one whose sender died is taken again after its lease.
   */
  async claimDue(limit: number, leaseMs: number): Promise<DuePush[]> {
    const rows = await this.db
      .with('due', (db) =>
        db
          .selectFrom('a2a_push_configs as p')
          .innerJoin('runs as r', 'r.id', 'p.run_id')
          .select(['p.run_id', 'p.id', pushState.as('state')])
          .where('p.next_at', '<=', sql<Date>`now()`)
          .where('p.sent_state', 'is distinct from', pushState)
          .orderBy('p.next_at')
          .limit(limit)
          .forUpdate('p')
          .skipLocked(),
      )
      .updateTable('a2a_push_configs as p')
      .from('due')
      .set({ next_at: inMs(leaseMs) })
      .whereRef('p.run_id', '=', 'due.run_id')
      .whereRef('p.id', '=', 'due.id')
      .returning([
        'p.run_id',
        'p.id',
        'p.tenant_id',
        'p.url',
        'p.token',
        'p.auth_scheme',
        'p.auth_credentials',
        'p.attempts',
        'due.state',
      ])
      .execute();
    return rows.map((r) => ({
      config: this.configOf(r),
      tenantId: r.tenant_id,
      attempts: r.attempts,
      state: r.state,
    }));
  }

  /** Told: once the task's last state was, the config is never due again. */
  async pushed(runId: string, id: string, state: string): Promise<void> {
    await this.db
      .updateTable('a2a_push_configs')
      .set({ sent_state: state, attempts: 0, last_error: null, next_at: nextAfter(state) })
      .where('run_id', '=', runId)
      .where('id', '=', id)
      .execute();
  }

  /** A failed notification: tried again after `retryInMs`, or given up on for this state (null). */
  async pushFailed(
    runId: string,
    id: string,
    state: string,
    error: string,
    retryInMs: number | null,
  ): Promise<void> {
    await this.db
      .updateTable('a2a_push_configs')
      .set((eb) =>
        retryInMs === null
          ? { sent_state: state, attempts: 0, last_error: error, next_at: nextAfter(state) }
          : { attempts: eb('attempts', '+', 1), last_error: error, next_at: inMs(retryInMs) },
      )
      .where('run_id', '=', runId)
      .where('id', '=', id)
      .execute();
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
