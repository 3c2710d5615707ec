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
  Res,
  UseGuards,
} from '@nestjs/common';
import type { Response } from 'express';
import { z } from 'zod';
import { type AgentConfig, DEFAULT_AGENT_ID } from '@switchyard/contracts';
import { ApiKeyGuard, Tenant, type TenantContext } from '../auth/api-key.guard';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { ZodPipe } from '../http/zod-body.pipe';
import { agentGraph, agentSchemas } from './assistant-graph';
import { LangGraphRepository } from './langgraph.repository';
import {
  AssistantCountSchema,
  type AssistantSearch,
  AssistantSearchSchema,
  AssistantVersionsSchema,
} from './langgraph.schemas';
import { assistantView, builtInAssistant, pick } from './langgraph.views';

type Assistant = ReturnType<typeof assistantView>;

/**
 * LangGraph assistants = Switchyard agents (`graph_id` = the agent's name; the built-in agent is
 * `default`); an assistant is found by its id or its graph id.
 */
@Controller('assistants')
@UseGuards(ApiKeyGuard, RateLimitGuard)
export class LangGraphAssistantsController {
  constructor(@Inject(LangGraphRepository) private readonly repo: LangGraphRepository) {}

  @Post('search')
  @HttpCode(200)
  async search(
    @Tenant() tenant: TenantContext,
    @Body(new ZodPipe(AssistantSearchSchema)) q: AssistantSearch,
    @Res({ passthrough: true }) res: Response,
  ) {
    // Assistants carry no metadata: a metadata filter matches none of them.
    if (q.metadata && Object.keys(q.metadata).length > 0) {
      return [];
    }
    const wanted = q.graph_id ?? q.name;
    const conflicting = q.graph_id !== undefined && q.name !== undefined && q.graph_id !== q.name;
    const withBuiltIn = !conflicting && (wanted === undefined || wanted === DEFAULT_AGENT_ID);
    const agents = (
      await this.repo.searchAgents(tenant.tenantId, {
        graphId: q.graph_id,
        name: q.name,
        // The built-in one comes first: fetch enough agents to fill the page after it.
        limit: q.offset + q.limit + 1,
        offset: 0,
        sortBy: q.sort_by,
        sortOrder: q.sort_order,
      })
    ).map(assistantView);
    const all: Assistant[] = withBuiltIn
      ? [builtInAssistant(await this.repo.tenantCreatedAt(tenant.tenantId)), ...agents]
      : agents;
    const page = all.slice(q.offset, q.offset + q.limit);
    if (all.length > q.offset + q.limit) {
      res.setHeader('X-Pagination-Next', String(q.offset + q.limit));
    }
    return q.select ? page.map((a) => pick(a, q.select ?? [])) : page;
  }

  /** How many assistants `search` would find with the same filters (the built-in one included). */
  @Post('count')
  @HttpCode(200)
  async count(
    @Tenant() tenant: TenantContext,
    @Body(new ZodPipe(AssistantCountSchema)) q: z.infer<typeof AssistantCountSchema>,
  ) {
    if (q.metadata && Object.keys(q.metadata).length > 0) {
      return 0;
    }
    if (q.graph_id !== undefined && q.name !== undefined && q.graph_id !== q.name) {
      return 0;
    }
    const wanted = q.graph_id ?? q.name;
    const builtIn = wanted === undefined || wanted === DEFAULT_AGENT_ID ? 1 : 0;
    return builtIn + (await this.repo.countAgents(tenant.tenantId, wanted));
  }

  // Assistants are Switchyard agents, made and changed through /v1/agents (a new version each
  // change); these LangGraph routes are refused, named, rather than answered with a bare 404.
  @Post()
  refuseCreate(): never {
    throw notYet('POST /assistants', 'create the agent with POST /v1/agents; it is then an assistant');
  }

  @Patch(':assistant_id')
  refuseUpdate(): never {
    throw notYet('PATCH /assistants/{id}', 'publish a new version with PATCH /v1/agents/{id}');
  }

  @Delete(':assistant_id')
  refuseDelete(): never {
    throw notYet('DELETE /assistants/{id}', 'delete the agent with DELETE /v1/agents/{id}');
  }

  @Post(':assistant_id/latest')
  refuseSetLatest(): never {
    throw notYet(
      'POST /assistants/{id}/latest',
      'the latest published version of an agent is always its latest',
    );
  }

  /** The agent's topology in LangGraph's graph JSON (`xray` changes nothing: there are no subgraphs). */
  @Get(':assistant_id/graph')
  async graph(@Tenant() tenant: TenantContext, @Param('assistant_id') id: string) {
    return agentGraph(await this.configOf(tenant.tenantId, id));
  }

  @Get(':assistant_id/schemas')
  async schemas(@Tenant() tenant: TenantContext, @Param('assistant_id') id: string) {
    const config = await this.configOf(tenant.tenantId, id);
    return agentSchemas(config?.name ?? DEFAULT_AGENT_ID, config);
  }

  /** No agent has subgraphs (a canvas's loops are drawn in its own graph). */
  @Get([':assistant_id/subgraphs', ':assistant_id/subgraphs/*'])
  async subgraphs(@Tenant() tenant: TenantContext, @Param('assistant_id') id: string) {
    await this.configOf(tenant.tenantId, id);
    return {};
  }

  /** The latest published configuration of the assistant (null: the built-in agent); 404 when none. */
  private async configOf(tenantId: string, id: string): Promise<AgentConfig | null> {
    if (id === DEFAULT_AGENT_ID) {
      return null;
    }
    const agent = await this.repo.agentOrThrow(tenantId, id);
    return { ...(await this.repo.latestConfig(agent.id)), name: agent.name };
  }

  @Get(':assistant_id')
  async get(@Tenant() tenant: TenantContext, @Param('assistant_id') id: string) {
    if (id === DEFAULT_AGENT_ID) {
      return builtInAssistant(await this.repo.tenantCreatedAt(tenant.tenantId));
    }
    return assistantView(await this.repo.agentOrThrow(tenant.tenantId, id));
  }

  /** The agent's published versions, newest first, as assistant versions. */
  @Post(':assistant_id/versions')
  @HttpCode(200)
  async versions(
    @Tenant() tenant: TenantContext,
    @Param('assistant_id') id: string,
    @Body(new ZodPipe(AssistantVersionsSchema)) q: z.infer<typeof AssistantVersionsSchema>,
  ) {
    if (id === DEFAULT_AGENT_ID) {
      return q.offset === 0 ? [builtInAssistant(await this.repo.tenantCreatedAt(tenant.tenantId))] : [];
    }
    const agent = await this.repo.agentOrThrow(tenant.tenantId, id);
    if (q.metadata && Object.keys(q.metadata).length > 0) {
      return [];
    }
    const rows = await this.repo.agentVersions(agent.id, q.limit, q.offset);
    return rows.map((v) => ({
      ...assistantView({ ...agent, version: v.version, updated_at: v.created_at }),
      created_at: new Date(v.created_at).toISOString(),
    }));
  }
}

/** A LangGraph route Switchyard does not answer yet: a 400 naming it and what to do instead. */
function notYet(route: string, instead: string): ApiException {
  return new ApiException(ApiErrorCode.InvalidRequest, `${route} is not supported yet: ${instead}`);
}
