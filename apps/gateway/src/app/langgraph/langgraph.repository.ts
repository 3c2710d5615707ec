import { Inject, Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { type AgentConfig, DEFAULT_AGENT_ID, type RunStatus, isUuid } from '@switchyard/contracts';
import { latestVersionSql } from '../agents/agents.repository';
import type { RunWaiting } from '@switchyard/persistence';
import { ApiErrorCode, ApiException } from '../http/api.exception';
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

// $1 tenant, $2 graph id, $3 name, $4 metadata (contained).
const AGENT_WHERE = `a.tenant_id = $1 AND a.deleted_at IS NULL
         AND ($2::text IS NULL OR ${GRAPH_NAME_SQL} = $2 OR a.graph_id = $2)
         AND ($3::text IS NULL OR a.name = $3)
         AND ($4::jsonb IS NULL OR a.metadata @> $4::jsonb)`;

const agentFilterParams = (tenantId: string, q: Pick<AgentSearch, 'graphId' | 'name' | 'metadata'>) => [
  tenantId,
  q.graphId ?? null,
  q.name ?? null,
  q.metadata && Object.keys(q.metadata).length ? JSON.stringify(q.metadata) : null,
];

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

const RUN_COLUMNS = `id, thread_id, agent_id, status, created_at, started_at, finished_at, metadata, output, error, waiting, stream_modes`;

/**
 * The queries of the LangGraph-compatible surface: agents as assistants, threads with their
 * metadata and latest run, runs within a thread, and a thread's versions as checkpoints.
 */
@Injectable()
export class LangGraphRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  /** The tenant's agents (not the built-in one) matching the search, in the asked order. */
  async searchAgents(tenantId: string, q: AgentSearch): Promise<AgentRow[]> {
    return (await this.ds.query(
      `${AGENT_SELECT}
       WHERE ${AGENT_WHERE}
       ORDER BY ${SORT_COLUMNS[q.sortBy]} ${q.sortOrder === 'asc' ? 'ASC' : 'DESC'}, a.id
       LIMIT $5 OFFSET $6`,
      [...agentFilterParams(tenantId, q), q.limit, q.offset],
    )) as AgentRow[];
  }

  /** How many of the tenant's agents (not the built-in one) match. */
  async countAgents(
    tenantId: string,
    q: Pick<AgentSearch, 'graphId' | 'name' | 'metadata'>,
  ): Promise<number> {
    const [{ n }] = (await this.ds.query(
      `SELECT count(*)::int AS n FROM agents a WHERE ${AGENT_WHERE}`,
      agentFilterParams(tenantId, q),
    )) as { n: number }[];
    return n;
  }

  /** An agent by id or by name (graph id); 404 when none, 400 when several share the name. */
  async agentOrThrow(tenantId: string, idOrName: string): Promise<AgentRow> {
    const rows = (await this.ds.query(
      `${AGENT_SELECT}
       WHERE a.tenant_id = $1 AND a.deleted_at IS NULL AND ${isUuid(idOrName) ? 'a.id = $2::uuid' : 'a.name = $2'}
       ORDER BY a.created_at, a.id LIMIT 2`,
      [tenantId, idOrName],
    )) as AgentRow[];
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
    const [row] = (await this.ds.query(
      'SELECT id, deleted_at IS NOT NULL AS deleted FROM agents WHERE tenant_id = $1 AND id = $2',
      [tenantId, id],
    )) as { id: string; deleted: boolean }[];
    return row ?? null;
  }

  async agentVersions(
    agentId: string,
    limit: number,
    offset: number,
    metadata?: Record<string, unknown>,
  ): Promise<AgentVersionRow[]> {
    return (await this.ds.query(
      `SELECT id, version, created_at, config, assistant FROM agent_versions
       WHERE agent_id = $1 AND ($4::jsonb IS NULL OR COALESCE(assistant->'metadata', '{}') @> $4::jsonb)
       ORDER BY version DESC LIMIT $2 OFFSET $3`,
      [agentId, limit, offset, metadata && Object.keys(metadata).length ? JSON.stringify(metadata) : null],
    )) as AgentVersionRow[];
  }

  async agentVersion(agentId: string, version: number): Promise<AgentVersionRow | undefined> {
    const [row] = (await this.ds.query(
      'SELECT id, version, created_at, config, assistant FROM agent_versions WHERE agent_id = $1 AND version = $2',
      [agentId, version],
    )) as AgentVersionRow[];
    return row;
  }

  /** The assistant fields of the agent's newest version that has them (null: none has). */
  async latestAssistantFields(agentId: string): Promise<AssistantFields | null> {
    const [row] = (await this.ds.query(
      `SELECT assistant FROM agent_versions WHERE agent_id = $1 AND assistant IS NOT NULL
       ORDER BY version DESC LIMIT 1`,
      [agentId],
    )) as { assistant: AssistantFields }[];
    return row?.assistant ?? null;
  }

  /** The configuration of the version the agent's runs use (its draft when it has none). */
  async latestConfig(agentId: string): Promise<AgentConfig> {
    const [row] = (await this.ds.query(
      `SELECT coalesce(
         (SELECT v.config FROM agents a JOIN agent_versions v ON v.agent_id = a.id
          WHERE a.id = $1 AND v.version = ${latestVersionSql('a')}),
         (SELECT draft FROM agents WHERE id = $1)) AS config`,
      [agentId],
    )) as { config: AgentConfig }[];
    return row.config;
  }

  /** A new assistant: the agent with version 1 published from `config`; false when the id is taken. */
  async createAssistant(
    tenantId: string,
    id: string,
    config: AgentConfig,
    fields: AssistantFields,
  ): Promise<boolean> {
    return this.ds.transaction(async (m) => {
      const made = (await m.query(
        `INSERT INTO agents (id, tenant_id, name, draft, graph_id, metadata, description)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING RETURNING id`,
        [
          id,
          tenantId,
          fields.name,
          JSON.stringify(config),
          fields.graph_id === id ? null : fields.graph_id,
          JSON.stringify(fields.metadata),
          fields.description,
        ],
      )) as { id: string }[];
      if (made.length === 0) {
        return false;
      }
      await m.query(
        'INSERT INTO agent_versions (agent_id, version, config, assistant) VALUES ($1, 1, $2, $3)',
        [id, JSON.stringify(config), JSON.stringify(fields)],
      );
      return true;
    });
  }

  /** A new version of the assistant, which its runs use from now on; the row follows it. */
  async publishAssistant(agentId: string, config: AgentConfig, fields: AssistantFields) {
    await this.ds.transaction(async (m) => {
      await m.query(
        `INSERT INTO agent_versions (agent_id, version, config, assistant)
         SELECT $1, COALESCE(max(version), 0) + 1, $2, $3 FROM agent_versions WHERE agent_id = $1`,
        [agentId, JSON.stringify(config), JSON.stringify(fields)],
      );
      await this.followVersion(m, agentId, null, config, fields, true);
    });
  }

  /** The version runs use is `version` now; the row (name, metadata, …) is that version's. */
  async setLatest(agentId: string, version: AgentVersionRow) {
    await this.ds.transaction(async (m) => {
      await this.followVersion(m, agentId, version.version, version.config, version.assistant, false);
    });
  }

  /**
   * The tenant's threads of the agent: made for it, run by it, or naming it in their
   * `metadata.assistant_id`.
   */
  async threadIdsOfAgent(tenantId: string, agentId: string): Promise<string[]> {
    const rows = (await this.ds.query(
      `SELECT t.id FROM threads t WHERE t.tenant_id = $1
         AND (t.agent_id = $2 OR t.metadata->>'assistant_id' = $2
              OR EXISTS (SELECT 1 FROM runs r WHERE r.thread_id = t.id AND r.agent_id = $2))`,
      [tenantId, agentId],
    )) as { id: string }[];
    return rows.map((r) => r.id);
  }

  /**
   * The row follows the version runs use: its name, and — when the version has assistant fields —
   * its graph, metadata and description. A new version is the draft too (an edit published); a
   * version set latest leaves the draft alone (unpublished edits stay).
   */
  private async followVersion(
    m: EntityManager,
    agentId: string,
    latest: number | null,
    config: AgentConfig,
    fields: AssistantFields | null,
    asDraft: boolean,
  ): Promise<void> {
    await m.query(
      `UPDATE agents SET latest_version = $2, draft = COALESCE($3, draft), name = $4, updated_at = now(),
              graph_id = CASE WHEN $5::boolean THEN $6 ELSE graph_id END,
              metadata = CASE WHEN $5::boolean THEN $7::jsonb ELSE metadata END,
              description = CASE WHEN $5::boolean THEN $8 ELSE description END
       WHERE id = $1`,
      [
        agentId,
        latest,
        asDraft ? JSON.stringify(config) : null,
        fields?.name ?? config.name,
        fields !== null,
        fields && fields.graph_id !== agentId ? fields.graph_id : null,
        JSON.stringify(fields?.metadata ?? {}),
        fields?.description ?? null,
      ],
    );
  }

  async tenantCreatedAt(tenantId: string): Promise<Date> {
    const [row] = (await this.ds.query('SELECT created_at FROM tenants WHERE id = $1', [tenantId])) as {
      created_at: Date;
    }[];
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
    const inserted = (await this.ds.query(
      `INSERT INTO threads (id, tenant_id, agent_id, metadata, delete_when_done) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (id) DO NOTHING RETURNING id`,
      [threadId, tenantId, agentId, JSON.stringify(metadata), deleteWhenDone],
    )) as unknown[];
    if (inserted.length > 0) {
      return true;
    }
    // The id exists: another tenant's thread is not revealed, its id just cannot be taken.
    const [own] = (await this.ds.query('SELECT 1 FROM threads WHERE id = $1 AND tenant_id = $2', [
      threadId,
      tenantId,
    ])) as unknown[];
    if (!own) {
      throw new ApiException(ApiErrorCode.Conflict, `thread ${threadId} cannot be created (the id is taken)`);
    }
    return false;
  }

  async thread(tenantId: string, threadId: string): Promise<ThreadRow | undefined> {
    if (!isUuid(threadId)) {
      return undefined;
    }
    const [row] = (await this.ds.query(`${THREAD_SELECT} WHERE t.id = $1 AND t.tenant_id = $2`, [
      threadId,
      tenantId,
    ])) as ThreadRow[];
    return row;
  }

  /** The tenant's threads matching the filter, in the asked order, a page at a time. */
  async searchThreads(
    tenantId: string,
    filter: ThreadFilter,
    sort: { by: ThreadSearchSort; order: 'asc' | 'desc' },
    limit: number,
    offset: number,
  ): Promise<ThreadRow[]> {
    const dir = sort.order === 'asc' ? 'ASC' : 'DESC';
    return (await this.ds.query(
      `${THREAD_SELECT} WHERE ${THREAD_WHERE}
       ORDER BY ${THREAD_SORT[sort.by]} ${dir}, t.id ${dir} LIMIT $5 OFFSET $6`,
      [...threadFilterParams(tenantId, filter), limit, offset],
    )) as ThreadRow[];
  }

  async countThreads(tenantId: string, filter: ThreadFilter): Promise<number> {
    const [row] = (await this.ds.query(
      `SELECT count(*)::int AS n FROM (${THREAD_SELECT} WHERE ${THREAD_WHERE}) x`,
      threadFilterParams(tenantId, filter),
    )) as { n: number }[];
    return row.n;
  }

  /** Merges `metadata` into the thread's (LangGraph's update); false when it is not the tenant's. */
  async mergeThreadMetadata(
    tenantId: string,
    threadId: string,
    metadata: Record<string, unknown>,
  ): Promise<boolean> {
    const rows = (await this.ds.query(
      `UPDATE threads SET metadata = metadata || $3::jsonb WHERE id = $1 AND tenant_id = $2 RETURNING id`,
      [threadId, tenantId, JSON.stringify(metadata)],
    )) as [unknown[], number];
    return rows[1] > 0;
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
    const [row] =
      isUuid(runId) && (threadId === undefined || isUuid(threadId))
        ? ((await this.ds.query(
            `SELECT ${RUN_COLUMNS} FROM runs WHERE id = $1 AND tenant_id = $2 AND ($3::uuid IS NULL OR thread_id = $3)`,
            [runId, tenantId, threadId ?? null],
          )) as LgRunRow[])
        : [];
    if (!row) {
      throw ApiException.notFound(
        threadId === undefined ? `run "${runId}"` : `run "${runId}" of thread "${threadId}"`,
      );
    }
    return row;
  }

  async runsOfThread(threadId: string): Promise<LgRunRow[]> {
    return (await this.ds.query(
      `SELECT ${RUN_COLUMNS} FROM runs WHERE thread_id = $1 ORDER BY created_at DESC`,
      [threadId],
    )) as LgRunRow[];
  }

  /** The run of the thread that waits for a human answer (ask_user), if one does. */
  async waitingRun(threadId: string): Promise<LgRunRow | undefined> {
    const [row] = (await this.ds.query(
      `SELECT ${RUN_COLUMNS} FROM runs WHERE thread_id = $1 AND status = 'waiting' ORDER BY created_at DESC LIMIT 1`,
      [threadId],
    )) as LgRunRow[];
    return row;
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
    const rows = (await this.ds.query(
      `SELECT id FROM runs WHERE tenant_id = $1 AND status = ANY($2::text[])
         AND ($3::uuid IS NULL OR thread_id = $3) AND ($4::uuid[] IS NULL OR id = ANY($4::uuid[]))
       ORDER BY created_at`,
      [tenantId, statuses, q.threadId ?? null, q.runIds ?? null],
    )) as { id: string }[];
    return rows.map((r) => r.id);
  }

  /** Records the stream modes a LangGraph request started (or resumed) the run with. */
  async setStreamModes(runId: string, modes: readonly string[]): Promise<void> {
    await this.ds.query(`UPDATE runs SET stream_modes = $2 WHERE id = $1`, [runId, modes]);
  }

  async hasRuns(threadId: string): Promise<boolean> {
    const rows = (await this.ds.query('SELECT 1 FROM runs WHERE thread_id = $1 LIMIT 1', [
      threadId,
    ])) as unknown[];
    return rows.length > 0;
  }

  /** The run's status and waiting task (what a follower checks when events may be missing). */
  async runStatus(runId: string): Promise<{ status: RunStatus; waiting_task: string | null } | undefined> {
    const [row] = (await this.ds.query(
      `SELECT status, waiting->>'task_id' AS waiting_task FROM runs WHERE id = $1`,
      [runId],
    )) as { status: RunStatus; waiting_task: string | null }[];
    return row;
  }

  async run(runId: string): Promise<LgRunRow | undefined> {
    const [row] = (await this.ds.query(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = $1`, [
      runId,
    ])) as LgRunRow[];
    return row;
  }

  async threadVersion(threadId: string): Promise<number> {
    const [row] = (await this.ds.query('SELECT version FROM threads WHERE id = $1', [threadId])) as {
      version: number;
    }[];
    return row?.version ?? 0;
  }
}

// $1 tenant, $2 metadata (contained), $3 ids, $4 status.
const THREAD_WHERE = `t.tenant_id = $1 AND ($2::jsonb IS NULL OR t.metadata @> $2::jsonb)
         AND ($3::uuid[] IS NULL OR t.id = ANY($3::uuid[]))
         AND ($4::text IS NULL OR ${THREAD_STATUS_SQL} = $4)`;

function threadFilterParams(tenantId: string, f: ThreadFilter): unknown[] {
  return [tenantId, f.metadata ? JSON.stringify(f.metadata) : null, f.ids ?? null, f.status ?? null];
}
