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
  Query,
  Res,
  UseGuards,
} from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { NodeDirectory } from '@switchyard/platform';
import type { Response } from 'express';
import { z } from 'zod';
import { type AgentConfig, DEFAULT_AGENT_ID } from '@switchyard/contracts';
import { ApiKeyGuard, Tenant, type TenantContext } from '../auth/api-key.guard';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { ZodPipe } from '../http/zod-body.pipe';
import { AgentsRepository } from '../agents/agents.repository';
import { assertStorableAgent } from '../agents/agent-config.validator';
import { GatewayConfig } from '../gateway.config';
import { ThreadDeletion } from '../threads/thread-deletion.service';
import { assistantAgentConfig } from './assistant-config';
import { agentGraph, agentSchemas } from './assistant-graph';
import { type AgentRow, type AssistantFields, LangGraphRepository } from './langgraph.repository';
import {
  type AssistantCreate,
  AssistantCreateSchema,
  AssistantCountSchema,
  AssistantLatestSchema,
  type AssistantSearch,
  AssistantSearchSchema,
  type AssistantUpdate,
  AssistantUpdateSchema,
  AssistantVersionsSchema,
} from './langgraph.schemas';
import { assistantVersionView, assistantView, builtInAssistant, pick } from './langgraph.views';

type Assistant = ReturnType<typeof assistantView>;

/**
 * LangGraph assistants = Switchyard agents (`graph_id` = the agent's name; the built-in agent is
 * `default`); an assistant is found by its id or its graph id.
 */
@Controller('assistants')
@UseGuards(ApiKeyGuard, RateLimitGuard)
export class LangGraphAssistantsController {
  constructor(
    @Inject(LangGraphRepository) private readonly repo: LangGraphRepository,
    @Inject(AgentsRepository) private readonly agents: AgentsRepository,
    @Inject(ThreadDeletion) private readonly deletion: ThreadDeletion,
    @Inject(NodeDirectory) private readonly directory: NodeDirectory,
    @Inject(GatewayConfig) private readonly config: GatewayConfig,
  ) {}

  @Post('search')
  @HttpCode(200)
  async search(
    @Tenant() tenant: TenantContext,
    @Body(new ZodPipe(AssistantSearchSchema)) q: AssistantSearch,
    @Res({ passthrough: true }) res: Response,
  ) {
    const agents = (
      await this.repo.searchAgents(tenant.tenantId, {
        graphId: q.graph_id,
        name: q.name,
        metadata: q.metadata,
        // The built-in one comes first: fetch enough agents to fill the page after it.
        limit: q.offset + q.limit + 1,
        offset: 0,
        sortBy: q.sort_by,
        sortOrder: q.sort_order,
      })
    ).map(assistantView);
    const all: Assistant[] = builtInMatches(q)
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
    const filters = { graphId: q.graph_id, name: q.name, metadata: q.metadata };
    return (builtInMatches(q) ? 1 : 0) + (await this.repo.countAgents(tenant.tenantId, filters));
  }

  /**
   * An assistant made from an agent (`graph_id`: its name, or `default`): that agent's
   * configuration with this one's settings (`config.configurable`, `context`) over it — a new
   * agent, with version 1, that runs take by its id. `assistant_id` chooses its id (taken → 409,
   * or the existing one with `if_exists: "do_nothing"`).
   */
  @Post()
  @HttpCode(200)
  async create(
    @Tenant() tenant: TenantContext,
    @Body(new ZodPipe(AssistantCreateSchema)) body: AssistantCreate,
  ) {
    const id = body.assistant_id ?? randomUUID();
    const taken = await this.repo.agentById(tenant.tenantId, id);
    if (taken) {
      if (body.if_exists === 'do_nothing' && !taken.deleted) {
        return assistantView(await this.repo.agentOrThrow(tenant.tenantId, id));
      }
      throw new ApiException(ApiErrorCode.Conflict, `assistant ${id} already exists`);
    }
    const graph = await this.graphOf(tenant.tenantId, body.graph_id);
    const fields: AssistantFields = {
      graph_id: graph.id,
      graph_name: graph.name,
      config: body.config ?? {},
      context: body.context ?? {},
      metadata: body.metadata ?? {},
      name: body.name ?? 'Untitled',
      description: body.description ?? null,
    };
    const config = assistantAgentConfig(graph.config, fields.name, fields.config, fields.context);
    await assertStorableAgent(config, tenant.tenantId, this.directory);
    if (!(await this.repo.createAssistant(tenant.tenantId, id, config, fields))) {
      throw new ApiException(ApiErrorCode.Conflict, `assistant ${id} already exists`);
    }
    return assistantView(await this.repo.agentOrThrow(tenant.tenantId, id));
  }

  /**
   * A new version, which runs use from now on: what is not sent is the current version's
   * (`metadata` is merged into it). The settings go over the graph's configuration as it is now;
   * over the agent's own when it keeps its graph and the version its runs use was made under
   * /v1/agents (an agent made there, or one changed there since), so those edits are kept.
   */
  @Patch(':assistant_id')
  async update(
    @Tenant() tenant: TenantContext,
    @Param('assistant_id') id: string,
    @Body(new ZodPipe(AssistantUpdateSchema)) body: AssistantUpdate,
  ) {
    const agent = await this.agentOf(tenant.tenantId, id);
    const currentGraph = agent.graph_ref ?? agent.id;
    const current: AssistantFields = agent.assistant ??
      (await this.repo.latestAssistantFields(agent.id)) ?? {
        graph_id: currentGraph,
        graph_name: agent.graph_id,
        config: {},
        context: {},
        metadata: agent.metadata,
        name: agent.name,
        description: agent.description,
      };
    const wanted = body.graph_id ? await this.graphOf(tenant.tenantId, body.graph_id) : null;
    const graph =
      (wanted === null || wanted.id === currentGraph) && agent.assistant === null
        ? { id: currentGraph, name: agent.graph_id, config: await this.repo.latestConfig(agent.id) }
        : (wanted ?? (await this.graphOf(tenant.tenantId, currentGraph)));
    const fields: AssistantFields = {
      graph_id: graph.id,
      graph_name: graph.name,
      config: body.config ?? current.config,
      context: body.context ?? current.context,
      metadata: { ...current.metadata, ...(body.metadata ?? {}) },
      name: body.name ?? current.name,
      description: body.description === undefined ? current.description : body.description,
    };
    const config = assistantAgentConfig(graph.config, fields.name, fields.config, fields.context);
    await assertStorableAgent(config, tenant.tenantId, this.directory);
    await this.repo.publishAssistant(agent.id, config, fields);
    return assistantView(await this.repo.agentOrThrow(tenant.tenantId, agent.id));
  }

  /**
   * Deletes the assistant (its runs stay readable; new runs of it are a 404). `delete_threads=true`
   * deletes its threads first, as `DELETE /threads/{id}` does — all or none: a run under way in
   * any of them is a 409.
   */
  @Delete(':assistant_id')
  @HttpCode(204)
  async delete(
    @Tenant() tenant: TenantContext,
    @Param('assistant_id') id: string,
    @Query('delete_threads') deleteThreads?: string,
  ) {
    const agent = await this.agentOf(tenant.tenantId, id);
    if (deleteThreads !== undefined && !['true', 'false'].includes(deleteThreads)) {
      throw ApiException.invalidField('delete_threads', 'must be true or false');
    }
    if (deleteThreads === 'true') {
      const ids = await this.repo.threadIdsOfAgent(tenant.tenantId, agent.id);
      const threads = ids.length
        ? await this.repo.searchThreads(
            tenant.tenantId,
            { ids },
            { by: 'thread_id', order: 'asc' },
            ids.length,
            0,
          )
        : [];
      const busy = threads.find(
        (t) => t.last_status && ['queued', 'running', 'waiting'].includes(t.last_status),
      );
      if (busy) {
        throw new ApiException(
          ApiErrorCode.Conflict,
          `thread ${busy.id} has a run that is ${busy.last_status} (${busy.last_run_id}): cancel it first`,
        );
      }
      for (const t of threads) {
        await this.deletion.delete(tenant.tenantId, t.id);
      }
    }
    await this.agents.softDelete(agent.id);
  }

  /** Runs use `version` from now on (until the next update); the assistant shows that version. */
  @Post(':assistant_id/latest')
  @HttpCode(200)
  async setLatest(
    @Tenant() tenant: TenantContext,
    @Param('assistant_id') id: string,
    @Body(new ZodPipe(AssistantLatestSchema)) body: z.infer<typeof AssistantLatestSchema>,
  ) {
    const agent = await this.agentOf(tenant.tenantId, id);
    const version = await this.repo.agentVersion(agent.id, body.version);
    if (!version) {
      throw ApiException.notFound(`version ${body.version} of assistant "${id}"`);
    }
    await this.repo.setLatest(agent.id, version);
    return assistantView(await this.repo.agentOrThrow(tenant.tenantId, agent.id));
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

  /** The agent's published versions, newest first, each with the fields it was given. */
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
    const rows = await this.repo.agentVersions(agent.id, q.limit, q.offset, q.metadata);
    return rows.map((v) => assistantVersionView(agent, v));
  }

  /** An assistant to change: the built-in one cannot be (a 400 saying what to do). */
  private async agentOf(tenantId: string, id: string): Promise<AgentRow> {
    if (id === DEFAULT_AGENT_ID) {
      throw ApiException.invalidField(
        'assistant_id',
        'the built-in assistant cannot be changed: create one with graph_id "default"',
      );
    }
    return this.repo.agentOrThrow(tenantId, id);
  }

  /**
   * The agent an assistant is made from — by name or id; `default`: the built-in one — with its
   * id (what is stored: a rename or a namesake changes nothing), name and configuration.
   */
  private async graphOf(
    tenantId: string,
    graphId: string,
  ): Promise<{ id: string; name: string; config: AgentConfig }> {
    if (graphId === DEFAULT_AGENT_ID) {
      return {
        id: DEFAULT_AGENT_ID,
        name: DEFAULT_AGENT_ID,
        config: { name: DEFAULT_AGENT_ID, max_steps: this.config.defaultMaxSteps },
      };
    }
    const agent = await this.repo.agentOrThrow(tenantId, graphId).catch((err: unknown) => {
      if (err instanceof ApiException && err.code === ApiErrorCode.NotFound) {
        throw ApiException.invalidField('graph_id', `no agent "${graphId}" to make the assistant from`);
      }
      throw err;
    });
    return { id: agent.id, name: agent.name, config: await this.repo.latestConfig(agent.id) };
  }
}

/** Whether the built-in assistant matches a search: it has no metadata and is `default` by name and graph. */
function builtInMatches(q: {
  graph_id?: string;
  name?: string;
  metadata?: Record<string, unknown>;
}): boolean {
  return (
    (q.metadata === undefined || Object.keys(q.metadata).length === 0) &&
    (q.graph_id === undefined || q.graph_id === DEFAULT_AGENT_ID) &&
    (q.name === undefined || q.name === DEFAULT_AGENT_ID)
  );
}
