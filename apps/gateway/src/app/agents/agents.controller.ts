import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Patch,
  Post,
  UseGuards,
} from '@nestjs/common';
import { z } from 'zod';
import {
  type AgentConfig,
  AgentConfigSchema,
  type AgentVersionList,
  type AgentVersionView,
  CreateAgentSchema,
  type DeletedAgentView,
  PatchAgentSchema,
} from '@switchyard/contracts';
import { ApiKeyGuard, Tenant, type TenantContext } from '../auth/api-key.guard';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { ZodPipe } from '../http/zod-body.pipe';
import { AgentsRepository } from './agents.repository';
import { agentVersionView, agentView } from './agents.views';
import { AgentCollections } from './agent-collections';
import { shownConfig } from './agent-config.validator';

const IdSchema = z.string().uuid();

/**
 * Agents: an editable draft and immutable published versions. Creating one publishes version 1;
 * `PATCH` edits the draft; `POST …/versions` publishes it. A run uses the latest published
 * version (or `draft`, or a version id) and keeps that configuration to its end.
 */
@Controller('v1/agents')
@UseGuards(ApiKeyGuard, RateLimitGuard)
export class AgentsController {
  constructor(
    @Inject(AgentsRepository) private readonly agents: AgentsRepository,
    @Inject(AgentCollections) private readonly collections: AgentCollections,
  ) {}

  @Post()
  async create(@Tenant() tenant: TenantContext, @Body(new ZodPipe(CreateAgentSchema)) body: AgentConfig) {
    const stored = await this.collections.storable(body, tenant.tenantId);
    const agent = await this.agents.create(tenant.tenantId, body.name, stored);
    return {
      id: agent.id,
      version: agent.versionId,
      version_number: 1,
      ...shownConfig(stored),
      created_at: agent.created_at.toISOString(),
    };
  }

  @Get()
  async list(@Tenant() tenant: TenantContext) {
    return { agents: (await this.agents.list(tenant.tenantId)).map(agentView) };
  }

  @Get(':agent_id')
  async get(@Tenant() tenant: TenantContext, @Param('agent_id', new ZodPipe(IdSchema)) id: string) {
    return agentView(await this.agents.getOrThrow(tenant.tenantId, id));
  }

  @Patch(':agent_id')
  async patch(
    @Tenant() tenant: TenantContext,
    @Param('agent_id', new ZodPipe(IdSchema)) id: string,
    @Body(new ZodPipe(PatchAgentSchema)) body: Partial<AgentConfig>,
  ) {
    const current = await this.agents.getOrThrow(tenant.tenantId, id);
    const draft = AgentConfigSchema.parse({ ...current.draft, ...body });
    const stored = await this.collections.storable(draft, tenant.tenantId);
    await this.agents.saveDraft(id, draft.name, stored);
    return agentView({ ...current, draft: stored, name: draft.name });
  }

  @Delete(':agent_id')
  @HttpCode(200)
  async remove(
    @Tenant() tenant: TenantContext,
    @Param('agent_id', new ZodPipe(IdSchema)) id: string,
  ): Promise<DeletedAgentView> {
    await this.agents.getOrThrow(tenant.tenantId, id);
    await this.agents.softDelete(id);
    return { id, deleted: true };
  }

  @Post(':agent_id/versions')
  async publish(
    @Tenant() tenant: TenantContext,
    @Param('agent_id', new ZodPipe(IdSchema)) id: string,
  ): Promise<AgentVersionView> {
    const agent = await this.agents.getOrThrow(tenant.tenantId, id);
    const row = await this.agents.publish(id, agent.draft);
    return agentVersionView(id, { ...row, config: agent.draft });
  }

  @Get(':agent_id/versions')
  async versions(
    @Tenant() tenant: TenantContext,
    @Param('agent_id', new ZodPipe(IdSchema)) id: string,
  ): Promise<AgentVersionList> {
    await this.agents.getOrThrow(tenant.tenantId, id);
    return { versions: (await this.agents.versions(id)).map((r) => agentVersionView(id, r)) };
  }
}
