import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { AgentConfig } from '@switchyard/contracts';
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
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  /** The agent with its draft, and version 1 published from it, in one transaction. */
  async create(
    tenantId: string,
    name: string,
    config: AgentConfig,
  ): Promise<{ id: string; versionId: string; created_at: Date }> {
    return this.ds.transaction(async (m) => {
      const [agent] = (await m.query(
        'INSERT INTO agents (tenant_id, name, draft) VALUES ($1, $2, $3) RETURNING id, created_at',
        [tenantId, name, JSON.stringify(config)],
      )) as { id: string; created_at: Date }[];
      const [version] = (await m.query(
        'INSERT INTO agent_versions (agent_id, version, config) VALUES ($1, 1, $2) RETURNING id',
        [agent.id, JSON.stringify(config)],
      )) as { id: string }[];
      return { id: agent.id, versionId: version.id, created_at: agent.created_at };
    });
  }

  /** The tenant's live agents (or the one named), with their latest version. */
  async list(tenantId: string, id?: string): Promise<AgentRow[]> {
    return (await this.ds.query(
      `SELECT a.id, a.name, a.draft, a.created_at, a.updated_at, v.id AS latest_version_id, v.version AS latest_version
       FROM agents a
       LEFT JOIN LATERAL (SELECT id, version FROM agent_versions WHERE agent_id = a.id AND version = ${latestVersionSql('a')}) v ON true
       WHERE a.tenant_id = $1 AND a.deleted_at IS NULL AND ($2::uuid IS NULL OR a.id = $2)
       ORDER BY a.created_at`,
      [tenantId, id ?? null],
    )) as AgentRow[];
  }

  async getOrThrow(tenantId: string, id: string): Promise<AgentRow> {
    const [row] = await this.list(tenantId, id);
    if (!row) {
      throw ApiException.notFound('agent');
    }
    return row;
  }

  async saveDraft(id: string, name: string, config: AgentConfig): Promise<void> {
    await this.ds.query('UPDATE agents SET draft = $2, name = $3, updated_at = now() WHERE id = $1', [
      id,
      JSON.stringify(config),
      name,
    ]);
  }

  async softDelete(id: string): Promise<void> {
    await this.ds.query('UPDATE agents SET deleted_at = now() WHERE id = $1', [id]);
  }

  /** Publishes `config` as the agent's next version number, which runs then use. */
  async publish(id: string, config: AgentConfig): Promise<Omit<AgentVersionRow, 'config'>> {
    const [row] = (await this.ds.query(
      `WITH unpinned AS (UPDATE agents SET latest_version = NULL WHERE id = $1)
       INSERT INTO agent_versions (agent_id, version, config)
       SELECT $1, COALESCE(max(version), 0) + 1, $2 FROM agent_versions WHERE agent_id = $1
       RETURNING id, version, created_at`,
      [id, JSON.stringify(config)],
    )) as Omit<AgentVersionRow, 'config'>[];
    return row;
  }

  async versions(id: string): Promise<AgentVersionRow[]> {
    return (await this.ds.query(
      'SELECT id, version, config, created_at FROM agent_versions WHERE agent_id = $1 ORDER BY version',
      [id],
    )) as AgentVersionRow[];
  }
}
