import { sql } from 'kysely';
import type { DataSource } from 'typeorm';
import { type Db, kyselyOf } from '@switchyard/persistence';
import { latestVersionSql } from '../agents/agents.repository';

/** A live agent as a model: its latest version (null: none published). */
export interface AgentModelRow {
  id: string;
  name: string;
  created_at: Date;
  version: number | null;
}

/** What `/v1/models` and a request's `model` read of a tenant's agents; every query is scoped to the tenant. */
export class AgentModelsRepository {
  private readonly db: Db;

  constructor(ds: DataSource) {
    this.db = kyselyOf(ds);
  }

  /** The tenant's live agents, oldest first (`agent`: only the one of this id or name; `limit`: at most so many). */
  async agents(
    tenantId: string,
    agent?: { id: string } | { name: string },
    limit?: number,
  ): Promise<AgentModelRow[]> {
    let query = this.db
      .selectFrom('agents as a')
      .select([
        'a.id',
        'a.name',
        'a.created_at',
        sql<number | null>`${sql.raw(latestVersionSql('a'))}`.as('version'),
      ])
      .where('a.tenant_id', '=', tenantId)
      .where('a.deleted_at', 'is', null);
    if (agent && 'id' in agent) {
      query = query.where('a.id', '=', agent.id);
    } else if (agent) {
      query = query.where('a.name', '=', agent.name);
    }
    query = query.orderBy('a.created_at').orderBy('a.id');
    return (limit === undefined ? query : query.limit(limit)).execute();
  }

  /** The id of the agent's version of this number, or of this id. */
  async versionId(
    agentId: string,
    version: { number: number } | { id: string },
  ): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('agent_versions')
      .select('id')
      .where('agent_id', '=', agentId)
      .where((eb) => ('number' in version ? eb('version', '=', version.number) : eb('id', '=', version.id)))
      .executeTakeFirst();
    return row?.id;
  }

  /** When the tenant was created (undefined: no such tenant). */
  async tenantCreatedAt(tenantId: string): Promise<Date | undefined> {
    const row = await this.db
      .selectFrom('tenants')
      .select('created_at')
      .where('id', '=', tenantId)
      .executeTakeFirst();
    return row?.created_at;
  }
}
