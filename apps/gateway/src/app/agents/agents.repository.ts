import { Inject, Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { DataSource } from 'typeorm';
import type { AgentConfig } from '@switchyard/contracts';
import { type Db, kyselyOf, kyselyTransaction } from '@switchyard/persistence';
import { ApiException } from '../http/api.exception';

export interface AgentRow {
  id: string;
  name: string;
  draft: AgentConfig;
  created_at: Date;
  updated_at: Date;
  latest_version_id: string | null;
  latest_version: number | null;
}

export interface AgentVersionRow {
  id: string;
  version: number;
  config: AgentConfig;
  created_at: Date;
}

/**
 * The version an agent's runs use, in SQL (`a`: an `agents` alias): the one set latest
 * (LangGraph's `POST /assistants/{id}/latest`), else its newest.
 */
export const latestVersionSql = (a: string): string =>
  `COALESCE(${a}.latest_version, (SELECT max(lv.version) FROM agent_versions lv WHERE lv.agent_id = ${a}.id))`;

/** A tenant's agents: drafts and immutable versions; every query is scoped to the tenant. */
@Injectable()
export class AgentsRepository {
  private readonly db: Db;

  constructor(@Inject(DataSource) private readonly ds: DataSource) {
    this.db = kyselyOf(ds);
  }

  /** The agent with its draft, and version 1 published from it, in one transaction. */
  async create(
    tenantId: string,
    name: string,
    config: AgentConfig,
  ): Promise<{ id: string; versionId: string; created_at: Date }> {
    return kyselyTransaction(this.ds, async (db) => {
      const agent = await db
        .insertInto('agents')
        .values({ tenant_id: tenantId, name, draft: JSON.stringify(config) })
        .returning(['id', 'created_at'])
        .executeTakeFirstOrThrow();
      const version = await db
        .insertInto('agent_versions')
        .values({ agent_id: agent.id, version: 1, config: JSON.stringify(config) })
        .returning('id')
        .executeTakeFirstOrThrow();
      return { id: agent.id, versionId: version.id, created_at: agent.created_at };
    });
  }

  /** The tenant's live agents (or the one named), with their latest version. */
  async list(tenantId: string, id?: string): Promise<AgentRow[]> {
    let q = this.db
      .selectFrom('agents as a')
      .leftJoinLateral(
        (eb) =>
          eb
            .selectFrom('agent_versions')
            .select(['id', 'version'])
            .whereRef('agent_id', '=', 'a.id')
            .where('version', '=', sql.raw<number>(latestVersionSql('a')))
            .as('v'),
        (join) => join.onTrue(),
      )
      .select([
        'a.id',
        'a.name',
        'a.draft',
        'a.created_at',
        'a.updated_at',
        'v.id as latest_version_id',
        'v.version as latest_version',
      ])
      .where('a.tenant_id', '=', tenantId)
      .where('a.deleted_at', 'is', null);
    if (id !== undefined) {
      q = q.where('a.id', '=', id);
    }
    const rows = await q.orderBy('a.created_at').execute();
    return rows.map((r) => ({ ...r, draft: r.draft as unknown as AgentConfig }));
  }

  async getOrThrow(tenantId: string, id: string): Promise<AgentRow> {
    const [row] = await this.list(tenantId, id);
    if (!row) {
      throw ApiException.notFound('agent');
    }
    return row;
  }

  async saveDraft(id: string, name: string, config: AgentConfig): Promise<void> {
    await this.db
      .updateTable('agents')
      .set({ draft: JSON.stringify(config), name, updated_at: sql<Date>`now()` })
      .where('id', '=', id)
      .execute();
  }

  async softDelete(id: string): Promise<void> {
    await this.db
      .updateTable('agents')
      .set({ deleted_at: sql<Date>`now()` })
      .where('id', '=', id)
      .execute();
  }

  /**
   * Publishes `config` as the agent's next version number, which runs then use. Raw SQL: one
   * statement unpins the agent (a data-modifying CTE) and numbers the version from its max.
   */
  async publish(id: string, config: AgentConfig): Promise<Omit<AgentVersionRow, 'config'>> {
    const { rows } = await sql<Omit<AgentVersionRow, 'config'>>`
      WITH unpinned AS (UPDATE agents SET latest_version = NULL WHERE id = ${id})
      INSERT INTO agent_versions (agent_id, version, config)
      SELECT ${id}::uuid, COALESCE(max(version), 0) + 1, ${JSON.stringify(config)}::jsonb
      FROM agent_versions WHERE agent_id = ${id}
      RETURNING id, version, created_at`.execute(this.db);
    return rows[0];
  }

  async versions(id: string): Promise<AgentVersionRow[]> {
    const rows = await this.db
      .selectFrom('agent_versions')
      .select(['id', 'version', 'config', 'created_at'])
      .where('agent_id', '=', id)
      .orderBy('version')
      .execute();
    return rows.map((r) => ({ ...r, config: r.config as unknown as AgentConfig }));
  }
}
