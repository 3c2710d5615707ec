import { Inject, Injectable } from '@nestjs/common';
import { type RawBuilder, type Selectable, sql } from 'kysely';
import { DataSource } from 'typeorm';
import { type AgentConfig, DEFAULT_AGENT_ID, type RunStatus, isUuid } from '@switchyard/contracts';
import { latestVersionSql } from '../agents/agents.repository';
import { type DB, type Db, type RunWaiting, kyselyOf, kyselyTransaction } from '@switchyard/persistence';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { RunStreamsRepository } from '../runs/run-streams.repository';
import type { LgThreadStatus } from './langgraph.schemas';
import { LG_THREAD_STATUS_OF } from './langgraph.views';

/** An agent as an assistant: its row and the version its runs use. */
export interface AgentRow {
  id: string;
  name: string;
  /** The name of the agent it was made from, or its own name. */
  graph_id: string;
  /** The id of the agent it was made from (`default`: the built-in one); null: its own. */
  graph_ref: string | null;
  metadata: Record<string, unknown>;
  description: string | null;
  created_at: Date;
  updated_at: Date;
  version: number | null;
  /** That version's assistant fields as the API was given them (null: made under /v1/agents). */
  assistant: AssistantFields | null;
}

/** What `POST /assistants` / `PATCH` were given, kept with each version. */
export interface AssistantFields {
  /** The id of the agent it is made from (`default`: the built-in one). */
  graph_id: string;
  /** That agent's name then (what views show as the graph id). */
  graph_name: string;
  config: Record<string, unknown>;
  context: Record<string, unknown>;
  metadata: Record<string, unknown>;
  name: string;
  description: string | null;
}

export interface AgentVersionRow {
  id: string;
  version: number;
  created_at: Date;
  config: AgentConfig;
  assistant: AssistantFields | null;
}

export interface ThreadRow {
  id: string;
  agent_id: string;
  created_at: Date;
  version: number;
  metadata: Record<string, unknown>;
  /** The newest of its runs' creation and end times (the thread's creation without runs). */
  updated_at: Date;
  /** The status of its latest run (null without runs). */
  last_status: RunStatus | null;
  /** The latest run's id, status, waiting and error when it waits or failed. */
  last_run_id: string | null;
  waiting: RunWaiting | null;
  error: { code: string; message: string } | null;
  /** Its latest run stopped at a static breakpoint (with nodes pending at the head). */
  at_breakpoint: boolean | null;
}

export interface LgRunRow {
  id: string;
  thread_id: string;
  agent_id: string;
  status: RunStatus;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  metadata: Record<string, unknown> | null;
  output: unknown;
  error: { code: string; message: string } | null;
  waiting: RunWaiting | null;
  /** The stream modes the LangGraph request that made (or last resumed) it asked for. */
  stream_modes: string[] | null;
}

export interface AgentSearch {
  graphId?: string;
  name?: string;
  metadata?: Record<string, unknown>;
  limit: number;
  offset: number;
  sortBy: 'assistant_id' | 'graph_id' | 'name' | 'created_at' | 'updated_at';
  sortOrder: 'asc' | 'desc';
}

/**
 * The graph id views show for agent `a`: the name of the agent it was made from (`agents.graph_id`
 * holds that agent's id, so a rename or a namesake changes nothing), or its own name.
 */
const GRAPH_NAME_SQL = `CASE WHEN a.graph_id IS NULL THEN a.name WHEN a.graph_id = '${DEFAULT_AGENT_ID}' THEN a.graph_id
        ELSE COALESCE((SELECT g.name FROM agents g WHERE g.id::text = a.graph_id), a.graph_id) END`;

const SORT_COLUMNS: Record<AgentSearch['sortBy'], string> = {
  assistant_id: 'a.id',
  graph_id: GRAPH_NAME_SQL,
  name: 'a.name',
  created_at: 'a.created_at',
  updated_at: 'a.updated_at',
};

/** An agent with the version its runs use (AgentRow), for `FROM agents a` queries. */
const AGENT_SELECT = `SELECT a.id, a.name, ${GRAPH_NAME_SQL} AS graph_id, a.graph_id AS graph_ref, a.metadata, a.description,
              a.created_at, a.updated_at, lv.version, lv.assistant
       FROM agents a
       LEFT JOIN LATERAL (SELECT version, assistant FROM agent_versions
                          WHERE agent_id = a.id AND version = ${latestVersionSql('a')}) lv ON true`;

/** A thread with what its latest run says about it (ThreadRow), for `FROM threads t` queries. */
const THREAD_SELECT = `SELECT t.id, t.agent_id, t.created_at, t.version, t.metadata,
              greatest(t.created_at, r.created_at, r.finished_at) AS updated_at,
              r.status AS last_status, r.id AS last_run_id, r.waiting, r.error, r.at_breakpoint
       FROM threads t
       LEFT JOIN LATERAL (SELECT id, status, created_at, finished_at, waiting, error,
                                 COALESCE(output ? 'breakpoint', false) AS at_breakpoint FROM runs
                          WHERE thread_id = t.id ORDER BY created_at DESC LIMIT 1) r ON true`;

/** `lgThreadStatus` of the latest run `r`, in SQL. */
const THREAD_STATUS_SQL = `CASE WHEN r.at_breakpoint THEN 'interrupted' ELSE CASE r.status ${Object.entries(
  LG_THREAD_STATUS_OF,
)
  .map(([run, thread]) => `WHEN '${run}' THEN '${thread}'`)
  .join(' ')} ELSE 'idle' END END`;

const THREAD_SORT: Record<ThreadSearchSort, string> = {
  thread_id: 't.id',
  status: THREAD_STATUS_SQL,
  created_at: 't.created_at',
  updated_at: 'greatest(t.created_at, r.created_at, r.finished_at)',
  state_updated_at: 'greatest(t.created_at, r.created_at, r.finished_at)',
};

export type ThreadSearchSort = 'thread_id' | 'status' | 'created_at' | 'updated_at' | 'state_updated_at';

/** What `threads.search` and `threads.count` filter on in SQL (values are matched on the state). */
export interface ThreadFilter {
  metadata?: Record<string, unknown>;
  ids?: string[];
  status?: LgThreadStatus;
}

const RUN_COLUMNS = [
  'id',
  'thread_id',
  'agent_id',
  'status',
  'created_at',
  'started_at',
  'finished_at',
  'metadata',
  'output',
  'error',
  'waiting',
  'stream_modes',
] as const;

/** A run's status holds its domain values; its JSON columns what the orchestrator wrote. */
function lgRunRow(r: Pick<Selectable<DB['runs']>, (typeof RUN_COLUMNS)[number]>): LgRunRow {
  return {
    ...r,
    status: r.status as RunStatus,
    metadata: r.metadata as LgRunRow['metadata'],
    error: r.error as LgRunRow['error'],
    waiting: r.waiting as unknown as LgRunRow['waiting'],
  };
}

const VERSION_COLUMNS = ['id', 'version', 'created_at', 'config', 'assistant'] as const;

/** A version's config and assistant fields hold the JSON this repository wrote. */
function versionRow(
  r: Pick<Selectable<DB['agent_versions']>, (typeof VERSION_COLUMNS)[number]>,
): AgentVersionRow {
  return {
    ...r,
    config: r.config as unknown as AgentConfig,
    assistant: r.assistant as unknown as AssistantFields | null,
  };
}

/** The metadata a search contains, as JSON (null: none asked for). */
const containedJson = (metadata: Record<string, unknown> | undefined): string | null =>
  metadata && Object.keys(metadata).length ? JSON.stringify(metadata) : null;

/** The agents `a` of the tenant (not deleted) matching the graph id, name and metadata asked for. */
function agentWhere(
  tenantId: string,
  q: Pick<AgentSearch, 'graphId' | 'name' | 'metadata'>,
): RawBuilder<boolean> {
  const where = [sql`a.tenant_id = ${tenantId}`, sql`a.deleted_at IS NULL`];
  const graphId = q.graphId ?? null;
  if (graphId !== null) {
    where.push(sql`(${sql.raw(GRAPH_NAME_SQL)} = ${graphId} OR a.graph_id = ${graphId})`);
  }
  const name = q.name ?? null;
  if (name !== null) {
    where.push(sql`a.name = ${name}`);
  }
  const metadata = containedJson(q.metadata);
  if (metadata !== null) {
    where.push(sql`a.metadata @> ${metadata}::jsonb`);
  }
  return sql<boolean>`${sql.join(where, sql` AND `)}`;
}

/** The tenant's threads `t` (with latest run `r`) matching the filter. */
function threadWhere(tenantId: string, f: ThreadFilter): RawBuilder<boolean> {
  const where = [sql`t.tenant_id = ${tenantId}`];
  if (f.metadata) {
    where.push(sql`t.metadata @> ${JSON.stringify(f.metadata)}::jsonb`);
  }
  if (f.ids) {
    where.push(sql`t.id = ANY(${f.ids}::uuid[])`);
  }
  if (f.status) {
    where.push(sql`${sql.raw(THREAD_STATUS_SQL)} = ${f.status}`);
  }
  return sql<boolean>`${sql.join(where, sql` AND `)}`;
}

/**
 * The queries of the LangGraph-compatible surface: agents as assistants, threads with their
 * metadata and latest run, runs within a thread, and a thread's versions as checkpoints. The
 * agent and thread views (a lateral join, computed graph ids and statuses, sorts chosen by the
 * request) are `sql<Row>` templates; the rest is Kysely's builder.
 */
@Injectable()
export class LangGraphRepository {
  private readonly db: Db;

  private readonly streams: RunStreamsRepository;

  constructor(@Inject(DataSource) private readonly ds: DataSource) {
    this.db = kyselyOf(ds);
    this.streams = new RunStreamsRepository(ds);
  }

  /** The tenant's agents (not the built-in one) matching the search, in the asked order. */
  async searchAgents(tenantId: string, q: AgentSearch): Promise<AgentRow[]> {
    const { rows } = await sql<AgentRow>`${sql.raw(AGENT_SELECT)}
       WHERE ${agentWhere(tenantId, q)}
       ORDER BY ${sql.raw(SORT_COLUMNS[q.sortBy])} ${sql.raw(q.sortOrder === 'asc' ? 'ASC' : 'DESC')}, a.id
       LIMIT ${q.limit} OFFSET ${q.offset}`.execute(this.db);
    return rows;
  }

  /** How many of the tenant's agents (not the built-in one) match. */
  async countAgents(
    tenantId: string,
    q: Pick<AgentSearch, 'graphId' | 'name' | 'metadata'>,
  ): Promise<number> {
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM agents a WHERE ${agentWhere(
      tenantId,
      q,
    )}`.execute(this.db);
    return rows[0].n;
  }

  /** An agent by id or by name (graph id); 404 when none, 400 when several share the name. */
  async agentOrThrow(tenantId: string, idOrName: string): Promise<AgentRow> {
    const { rows } = await sql<AgentRow>`${sql.raw(AGENT_SELECT)}
       WHERE a.tenant_id = ${tenantId} AND a.deleted_at IS NULL
         AND ${isUuid(idOrName) ? sql`a.id = ${idOrName}::uuid` : sql`a.name = ${idOrName}`}
       ORDER BY a.created_at, a.id LIMIT 2`.execute(this.db);
    if (rows.length === 0) {
      throw ApiException.notFound(`assistant "${idOrName}"`);
    }
    if (rows.length > 1) {
      throw new ApiException(
        ApiErrorCode.InvalidRequest,
        `several agents are named "${idOrName}": use the assistant_id (POST /assistants/search lists them)`,
      );
    }
    return rows[0];
  }

  /** An agent by id, deleted or not (null: none of the tenant's). */
  async agentById(tenantId: string, id: string): Promise<{ id: string; deleted: boolean } | null> {
    if (!isUuid(id)) {
      return null;
    }
    const row = await this.db
      .selectFrom('agents')
      .select(['id', sql<boolean>`deleted_at IS NOT NULL`.as('deleted')])
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ?? null;
  }

  async agentVersions(
    agentId: string,
    limit: number,
    offset: number,
    metadata?: Record<string, unknown>,
  ): Promise<AgentVersionRow[]> {
    let query = this.db.selectFrom('agent_versions').select(VERSION_COLUMNS).where('agent_id', '=', agentId);
    const contained = containedJson(metadata);
    if (contained !== null) {
      query = query.where(sql<boolean>`COALESCE(assistant->'metadata', '{}') @> ${contained}::jsonb`);
    }
    const rows = await query.orderBy('version', 'desc').limit(limit).offset(offset).execute();
    return rows.map(versionRow);
  }

  async agentVersion(agentId: string, version: number): Promise<AgentVersionRow | undefined> {
    const row = await this.db
      .selectFrom('agent_versions')
      .select(VERSION_COLUMNS)
      .where('agent_id', '=', agentId)
      .where('version', '=', version)
      .executeTakeFirst();
    return row && versionRow(row);
  }

  /** The assistant fields of the agent's newest version that has them (null: none has). */
  async latestAssistantFields(agentId: string): Promise<AssistantFields | null> {
    const row = await this.db
      .selectFrom('agent_versions')
      .select('assistant')
      .where('agent_id', '=', agentId)
      .where('assistant', 'is not', null)
      .orderBy('version', 'desc')
      .limit(1)
      .executeTakeFirst();
    return (row?.assistant ?? null) as unknown as AssistantFields | null;
  }

  /** The configuration of the version the agent's runs use (its draft when it has none). */
  async latestConfig(agentId: string): Promise<AgentConfig> {
    const { rows } = await sql<{ config: AgentConfig }>`SELECT coalesce(
         (SELECT v.config FROM agents a JOIN agent_versions v ON v.agent_id = a.id
          WHERE a.id = ${agentId} AND v.version = ${sql.raw(latestVersionSql('a'))}),
         (SELECT draft FROM agents WHERE id = ${agentId})) AS config`.execute(this.db);
    return rows[0].config;
  }

  /** A new assistant: the agent with version 1 published from `config`; false when the id is taken. */
  async createAssistant(
    tenantId: string,
    id: string,
    config: AgentConfig,
    fields: AssistantFields,
  ): Promise<boolean> {
    return kyselyTransaction(this.ds, async (db) => {
      const made = await db
        .insertInto('agents')
        .values({
          id,
          tenant_id: tenantId,
          name: fields.name,
          draft: JSON.stringify(config),
          graph_id: fields.graph_id === id ? null : fields.graph_id,
          metadata: JSON.stringify(fields.metadata),
          description: fields.description,
        })
        .onConflict((oc) => oc.column('id').doNothing())
        .returning('id')
        .execute();
      if (made.length === 0) {
        return false;
      }
      await db
        .insertInto('agent_versions')
        .values({
          agent_id: id,
          version: 1,
          config: JSON.stringify(config),
          assistant: JSON.stringify(fields),
        })
        .execute();
      return true;
    });
  }

  /** A new version of the assistant, which its runs use from now on; the row follows it. */
  async publishAssistant(agentId: string, config: AgentConfig, fields: AssistantFields) {
    await kyselyTransaction(this.ds, async (db) => {
      await db
        .insertInto('agent_versions')
        .columns(['agent_id', 'version', 'config', 'assistant'])
        .expression(
          db
            .selectFrom('agent_versions')
            .select([
              sql<string>`${agentId}::uuid`.as('agent_id'),
              sql<number>`COALESCE(max(version), 0) + 1`.as('version'),
              sql<string>`${JSON.stringify(config)}::jsonb`.as('config'),
              sql<string>`${JSON.stringify(fields)}::jsonb`.as('assistant'),
            ])
            .where('agent_id', '=', agentId),
        )
        .execute();
      await this.followVersion(db, agentId, null, config, fields, true);
    });
  }

  /** The version runs use is `version` now; the row (name, metadata, …) is that version's. */
  async setLatest(agentId: string, version: AgentVersionRow) {
    await kyselyTransaction(this.ds, async (db) => {
      await this.followVersion(db, agentId, version.version, version.config, version.assistant, false);
    });
  }

  /**
   * The tenant's threads of the agent: made for it, run by it, or naming it in their
   * `metadata.assistant_id`.
   */
  async threadIdsOfAgent(tenantId: string, agentId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('threads as t')
      .select('t.id')
      .where('t.tenant_id', '=', tenantId)
      .where((eb) =>
        eb.or([
          eb('t.agent_id', '=', agentId),
          eb(sql<string>`t.metadata->>'assistant_id'`, '=', agentId),
          eb.exists(
            eb
              .selectFrom('runs as r')
              .select(sql`1`.as('one'))
              .whereRef('r.thread_id', '=', 't.id')
              .where('r.agent_id', '=', agentId),
          ),
        ]),
      )
      .execute();
    return rows.map((r) => r.id);
  }

  /**
   * The row follows the version runs use: its name, and — when the version has assistant fields —
   * its graph, metadata and description. A new version is the draft too (an edit published); a
   * version set latest leaves the draft alone (unpublished edits stay).
   */
  private async followVersion(
    db: Db,
    agentId: string,
    latest: number | null,
    config: AgentConfig,
    fields: AssistantFields | null,
    asDraft: boolean,
  ): Promise<void> {
    await db
      .updateTable('agents')
      .set({
        latest_version: latest,
        name: fields?.name ?? config.name,
        updated_at: sql<Date>`now()`,
        ...(asDraft ? { draft: JSON.stringify(config) } : {}),
        ...(fields !== null
          ? {
              graph_id: fields.graph_id !== agentId ? fields.graph_id : null,
              metadata: JSON.stringify(fields.metadata ?? {}),
              description: fields.description ?? null,
            }
          : {}),
      })
      .where('id', '=', agentId)
      .execute();
  }

  async tenantCreatedAt(tenantId: string): Promise<Date> {
    const row = await this.db
      .selectFrom('tenants')
      .select('created_at')
      .where('id', '=', tenantId)
      .executeTakeFirst();
    return row?.created_at ?? new Date(0);
  }

  /** Creates the thread; false when a thread with that id already exists (for this tenant). */
  async createThread(
    tenantId: string,
    threadId: string,
    metadata: Record<string, unknown>,
    agentId = DEFAULT_AGENT_ID,
    deleteWhenDone = false,
  ): Promise<boolean> {
    const inserted = await this.db
      .insertInto('threads')
      .values({
        id: threadId,
        tenant_id: tenantId,
        agent_id: agentId,
        metadata: JSON.stringify(metadata),
        delete_when_done: deleteWhenDone,
      })
      .onConflict((oc) => oc.column('id').doNothing())
      .returning('id')
      .execute();
    if (inserted.length > 0) {
      return true;
    }
    // The id exists: another tenant's thread is not revealed, its id just cannot be taken.
    const own = await this.db
      .selectFrom('threads')
      .select(sql`1`.as('one'))
      .where('id', '=', threadId)
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
    if (!own) {
      throw new ApiException(ApiErrorCode.Conflict, `thread ${threadId} cannot be created (the id is taken)`);
    }
    return false;
  }

  async thread(tenantId: string, threadId: string): Promise<ThreadRow | undefined> {
    if (!isUuid(threadId)) {
      return undefined;
    }
    const { rows } = await sql<ThreadRow>`${sql.raw(THREAD_SELECT)}
       WHERE t.id = ${threadId} AND t.tenant_id = ${tenantId}`.execute(this.db);
    return rows[0];
  }

  /** The tenant's threads matching the filter, in the asked order, a page at a time. */
  async searchThreads(
    tenantId: string,
    filter: ThreadFilter,
    sort: { by: ThreadSearchSort; order: 'asc' | 'desc' },
    limit: number,
    offset: number,
  ): Promise<ThreadRow[]> {
    const dir = sql.raw(sort.order === 'asc' ? 'ASC' : 'DESC');
    const { rows } = await sql<ThreadRow>`${sql.raw(THREAD_SELECT)} WHERE ${threadWhere(tenantId, filter)}
       ORDER BY ${sql.raw(THREAD_SORT[sort.by])} ${dir}, t.id ${dir} LIMIT ${limit} OFFSET ${offset}`.execute(
      this.db,
    );
    return rows;
  }

  async countThreads(tenantId: string, filter: ThreadFilter): Promise<number> {
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n
       FROM (${sql.raw(THREAD_SELECT)} WHERE ${threadWhere(tenantId, filter)}) x`.execute(this.db);
    return rows[0].n;
  }

  /** Merges `metadata` into the thread's (LangGraph's update); false when it is not the tenant's. */
  async mergeThreadMetadata(
    tenantId: string,
    threadId: string,
    metadata: Record<string, unknown>,
  ): Promise<boolean> {
    const rows = await this.db
      .updateTable('threads')
      .set({ metadata: sql`metadata || ${JSON.stringify(metadata)}::jsonb` })
      .where('id', '=', threadId)
      .where('tenant_id', '=', tenantId)
      .returning('id')
      .execute();
    return rows.length > 0;
  }

  async threadOrThrow(tenantId: string, threadId: string): Promise<ThreadRow> {
    const row = await this.thread(tenantId, threadId);
    if (!row) {
      throw ApiException.notFound(`thread "${threadId}"`);
    }
    return row;
  }

  /** The tenant's run, in the thread named (any of the tenant's threads: a stateless run's). */
  async runOrThrow(tenantId: string, threadId: string | undefined, runId: string): Promise<LgRunRow> {
    let row: LgRunRow | undefined;
    if (isUuid(runId) && (threadId === undefined || isUuid(threadId))) {
      let query = this.runs().where('id', '=', runId).where('tenant_id', '=', tenantId);
      if (threadId !== undefined) {
        query = query.where('thread_id', '=', threadId);
      }
      const found = await query.executeTakeFirst();
      row = found && lgRunRow(found);
    }
    if (!row) {
      throw ApiException.notFound(
        threadId === undefined ? `run "${runId}"` : `run "${runId}" of thread "${threadId}"`,
      );
    }
    return row;
  }

  async runsOfThread(threadId: string): Promise<LgRunRow[]> {
    const rows = await this.runs().where('thread_id', '=', threadId).orderBy('created_at', 'desc').execute();
    return rows.map(lgRunRow);
  }

  /** The run of the thread that waits for a human answer (ask_user), if one does. */
  async waitingRun(threadId: string): Promise<LgRunRow | undefined> {
    const row = await this.runs()
      .where('thread_id', '=', threadId)
      .where('status', '=', 'waiting')
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row && lgRunRow(row);
  }

  /**
   * The ids of the tenant's runs still under way (or waiting) that a cancel-many names: by id, or
   * by LangGraph status (`pending` queued, `running` running or waiting, `all` both), in a thread.
   */
  async activeRunIds(
    tenantId: string,
    q: { threadId?: string | null; runIds?: string[] | null; status?: 'pending' | 'running' | 'all' | null },
  ): Promise<string[]> {
    const statuses =
      q.status === 'pending'
        ? ['queued']
        : q.status === 'running'
          ? ['running', 'waiting']
          : ['queued', 'running', 'waiting'];
    let query = this.db
      .selectFrom('runs')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('status', '=', sql<string>`ANY(${statuses}::text[])`);
    if (q.threadId !== undefined && q.threadId !== null) {
      query = query.where('thread_id', '=', q.threadId);
    }
    if (q.runIds !== undefined && q.runIds !== null) {
      query = query.where('id', '=', sql<string>`ANY(${q.runIds}::uuid[])`);
    }
    const rows = await query.orderBy('created_at').execute();
    return rows.map((r) => r.id);
  }

  /** Records the stream modes a LangGraph request started (or resumed) the run with. */
  async setStreamModes(runId: string, modes: readonly string[]): Promise<void> {
    await this.db
      .updateTable('runs')
      .set({ stream_modes: [...modes] })
      .where('id', '=', runId)
      .execute();
  }

  async hasRuns(threadId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('runs')
      .select(sql`1`.as('one'))
      .where('thread_id', '=', threadId)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The run's status and waiting task: the run streams' own read (RunStreamsRepository.status). */
  runStatus(runId: string): Promise<{ status: RunStatus; waiting_task: string | null } | undefined> {
    return this.streams.status(runId);
  }

  async run(runId: string): Promise<LgRunRow | undefined> {
    const row = await this.runs().where('id', '=', runId).executeTakeFirst();
    return row && lgRunRow(row);
  }

  async threadVersion(threadId: string): Promise<number> {
    const row = await this.db
      .selectFrom('threads')
      .select('version')
      .where('id', '=', threadId)
      .executeTakeFirst();
    return row?.version ?? 0;
  }

  /** Runs with the columns of an LgRunRow. */
  private runs() {
    return this.db.selectFrom('runs').select(RUN_COLUMNS);
  }
}
