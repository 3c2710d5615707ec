import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DEFAULT_AGENT_ID, isUuid } from '@switchyard/contracts';
import { type AgentModelRow, AgentModelsRepository } from './agent-models.repository';
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

const OWNER = 'switchyard';

/**
 * The tenant's agents as OpenAI models. A `model` names an agent by id or by name, optionally
 * with `@<version number>`, `@<version id>`, `@draft` or `@latest`; `default` is the built-in agent.
 */
@Injectable()
export class AgentModels {
  private readonly repo: AgentModelsRepository;

  constructor(@Inject(DataSource) ds: DataSource) {
    this.repo = new AgentModelsRepository(ds);
  }

  async list(tenantId: string): Promise<AgentModel[]> {
    const rows = await this.repo.agents(tenantId);
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
    const rows = await this.repo.agents(tenantId, isUuid(base) ? { id: base } : { name: base }, 2);
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
    const pinned = await this.repo.versionId(
      agent.id,
      byNumber ? { number: Number(version) } : { id: version },
    );
    if (!pinned) {
      throw OpenAiException.modelNotFound(model);
    }
    return { ...resolved, agentVersion: pinned };
  }

  private async builtIn(tenantId: string): Promise<AgentModel> {
    const createdAt = await this.repo.tenantCreatedAt(tenantId);
    return {
      id: DEFAULT_AGENT_ID,
      object: 'model',
      created: createdAt ? Math.floor(new Date(createdAt).getTime() / 1000) : 0,
      owned_by: OWNER,
      name: DEFAULT_AGENT_ID,
      version: null,
    };
  }
}

function view(row: AgentModelRow, tenantId: string): AgentModel {
  return {
    id: row.id,
    object: 'model',
    created: Math.floor(new Date(row.created_at).getTime() / 1000),
    owned_by: tenantId,
    name: row.name,
    version: row.version === null ? null : Number(row.version),
  };
}
