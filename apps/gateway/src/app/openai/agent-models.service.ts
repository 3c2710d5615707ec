import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DEFAULT_AGENT_ID, isUuid } from '@switchyard/contracts';
import { latestVersionSql } from '../agents/agents.repository';
import { OpenAiException } from './openai.exception';

/** An agent as an OpenAI model object (`GET /v1/models`). */
export interface AgentModel {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
  /** The agent's name and latest published version (extensions; OpenAI clients ignore them). */
  name: string;
  version: number | null;
}

/** What a request's `model` resolved to: the agent and the version its run pins. */
export interface ResolvedModel {
  agentId: string;
  /** A version id, `draft`, or undefined for the latest published version. */
  agentVersion?: string;
  model: AgentModel;
}

interface AgentRow {
  id: string;
  name: string;
  created_at: Date;
  version: number | null;
}

const OWNER = 'switchyard';

/**
 * The tenant's agents as OpenAI models. A `model` names an agent by id or by name, optionally
 * with `@<version number>`, `@<version id>`, `@draft` or `@latest`; `default` is the built-in agent.
 */
@Injectable()
export class AgentModels {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  async list(tenantId: string): Promise<AgentModel[]> {
    const rows = (await this.ds.query(
      `SELECT a.id, a.name, a.created_at,
              ${latestVersionSql('a')} AS version
       FROM agents a WHERE a.tenant_id = $1 AND a.deleted_at IS NULL ORDER BY a.created_at, a.id`,
      [tenantId],
    )) as AgentRow[];
    return [await this.builtIn(tenantId), ...rows.map((r) => view(r, tenantId))];
  }

  async resolve(tenantId: string, model: string): Promise<ResolvedModel> {
    const at = model.lastIndexOf('@');
    const base = at > 0 ? model.slice(0, at) : model;
    const version = at > 0 ? model.slice(at + 1) : undefined;
    if (base === DEFAULT_AGENT_ID) {
      if (version !== undefined && version !== 'latest') {
        throw OpenAiException.modelNotFound(model);
      }
      return { agentId: DEFAULT_AGENT_ID, model: await this.builtIn(tenantId) };
    }
    const rows = (await this.ds.query(
      `SELECT a.id, a.name, a.created_at,
              ${latestVersionSql('a')} AS version
       FROM agents a
       WHERE a.tenant_id = $1 AND a.deleted_at IS NULL AND ${isUuid(base) ? 'a.id = $2::uuid' : 'a.name = $2'}
       ORDER BY a.created_at, a.id LIMIT 2`,
      [tenantId, base],
    )) as AgentRow[];
    if (rows.length === 0) {
      throw OpenAiException.modelNotFound(model);
    }
    if (rows.length > 1) {
      throw OpenAiException.invalid(
        'model',
        `several agents are named "${base}": use the agent's id (GET /v1/models lists them)`,
      );
    }
    const agent = rows[0];
    const resolved = { agentId: agent.id, model: view(agent, tenantId) };
    if (version === undefined || version === 'latest') {
      return resolved;
    }
    if (version === 'draft') {
      return { ...resolved, agentVersion: 'draft' };
    }
    const byNumber = /^\d{1,9}$/.test(version);
    if (!byNumber && !isUuid(version)) {
      throw OpenAiException.modelNotFound(model);
    }
    const [pinned] = (await this.ds.query(
      byNumber
        ? 'SELECT id FROM agent_versions WHERE agent_id = $1 AND version = $2::int'
        : 'SELECT id FROM agent_versions WHERE agent_id = $1 AND id = $2::uuid',
      [agent.id, version],
    )) as { id: string }[];
    if (!pinned) {
      throw OpenAiException.modelNotFound(model);
    }
    return { ...resolved, agentVersion: pinned.id };
  }

  private async builtIn(tenantId: string): Promise<AgentModel> {
    const [tenant] = (await this.ds.query('SELECT created_at FROM tenants WHERE id = $1', [tenantId])) as {
      created_at: Date;
    }[];
    return {
      id: DEFAULT_AGENT_ID,
      object: 'model',
      created: tenant ? Math.floor(new Date(tenant.created_at).getTime() / 1000) : 0,
      owned_by: OWNER,
      name: DEFAULT_AGENT_ID,
      version: null,
    };
  }
}

function view(row: AgentRow, tenantId: string): AgentModel {
  return {
    id: row.id,
    object: 'model',
    created: Math.floor(new Date(row.created_at).getTime() / 1000),
    owned_by: tenantId,
    name: row.name,
    version: row.version === null ? null : Number(row.version),
  };
}
