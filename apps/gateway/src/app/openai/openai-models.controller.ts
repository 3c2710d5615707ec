import { Controller, Get, Inject, Param, UseGuards } from '@nestjs/common';
import { ApiKeyGuard, Tenant, type TenantContext } from '../auth/api-key.guard';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { AgentModels } from './agent-models.service';

/**
 * OpenAI's model list: the tenant's agents (and `default`, the built-in agent) are the models
 * `POST /v1/chat/completions` accepts.
 */
@Controller('v1/models')
@UseGuards(ApiKeyGuard, RateLimitGuard)
export class OpenAiModelsController {
  constructor(@Inject(AgentModels) private readonly models: AgentModels) {}

  @Get()
  async list(@Tenant() tenant: TenantContext) {
    return { object: 'list', data: await this.models.list(tenant.tenantId) };
  }

  @Get(':model')
  async get(@Tenant() tenant: TenantContext, @Param('model') model: string) {
    return (await this.models.resolve(tenant.tenantId, model)).model;
  }
}
