import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Query,
  Res,
  UseGuards,
} from '@nestjs/common';
import type { Response } from 'express';
import { ApiKeyGuard, Tenant, type TenantContext } from '../auth/api-key.guard';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { RagflowAgents } from './ragflow-agents.service';
import {
  AgentListSchema,
  CompletionSchema,
  DeleteSessionsSchema,
  RagflowCode,
  RagflowException,
  SessionListSchema,
  parsed,
} from './ragflow.dto';

const ok = (data?: unknown, message = 'success') => ({
  code: RagflowCode.Success,
  message,
  ...(data !== undefined ? { data } : {}),
});

/**
 * RAGFlow's agent HTTP API (`/api/v1/agents…`, its reference's shapes) over Switchyard's agents:
 * a RAGFlow client moves here by changing its base URL and key (`Authorization: Bearer`).
 * Answers are RAGFlow's envelope `{code, message, data}`, errors included (HTTP 200).
 */
@Controller('api/v1/agents')
@UseGuards(ApiKeyGuard, RateLimitGuard)
export class RagflowAgentsController {
  constructor(@Inject(RagflowAgents) private readonly agents: RagflowAgents) {}

  @Get()
  async list(@Tenant() tenant: TenantContext, @Query() query: Record<string, unknown>) {
    const q = parsed(AgentListSchema, query);
    return ok(await this.agents.list(tenant.tenantId, { ...q, title: q.title ?? q.name }));
  }

  @Post('chat/completions')
  @HttpCode(200)
  async completions(
    @Tenant() tenant: TenantContext,
    @Body() body: unknown,
    @Res() res: Response,
  ): Promise<void> {
    const data = await this.agents.complete(tenant.tenantId, parsed(CompletionSchema, body ?? {}), res);
    if (data) {
      // The OpenAI-compatible mode answers OpenAI's body; the standard mode RAGFlow's envelope.
      res.status(200).json('object' in data ? data : ok(data));
    }
  }

  /** The older path of the same (RAGFlow keeps it, deprecated): the agent in the path. */
  @Post(':agent_id/completions')
  @HttpCode(200)
  async agentCompletions(
    @Tenant() tenant: TenantContext,
    @Param('agent_id') agentId: string,
    @Body() body: unknown,
    @Res() res: Response,
  ): Promise<void> {
    const parsedBody = parsed(CompletionSchema, body ?? {});
    const data = await this.agents.complete(tenant.tenantId, { ...parsedBody, agent_id: agentId }, res);
    if (data) {
      res.status(200).json('object' in data ? data : ok(data));
    }
  }

  @Post(':agent_id/sessions')
  @HttpCode(200)
  async createSession(
    @Tenant() tenant: TenantContext,
    @Param('agent_id') agentId: string,
    @Query('user_id') userId: string | undefined,
    @Body() body: unknown,
  ) {
    if (body !== undefined && (body === null || typeof body !== 'object' || Array.isArray(body))) {
      throw new RagflowException(RagflowCode.ArgumentError, 'the body must be a JSON object');
    }
    return ok(
      await this.agents.createSession(
        tenant.tenantId,
        agentId,
        (body ?? {}) as Record<string, unknown>,
        userId,
      ),
    );
  }

  @Get(':agent_id/sessions')
  async listSessions(
    @Tenant() tenant: TenantContext,
    @Param('agent_id') agentId: string,
    @Query() query: Record<string, unknown>,
  ) {
    const { data, total } = await this.agents.listSessions(
      tenant.tenantId,
      agentId,
      parsed(SessionListSchema, query),
    );
    return { ...ok(data), total };
  }

  @Get(':agent_id/sessions/:session_id')
  async getSession(
    @Tenant() tenant: TenantContext,
    @Param('agent_id') agentId: string,
    @Param('session_id') sessionId: string,
  ) {
    return ok(await this.agents.getSession(tenant.tenantId, agentId, sessionId));
  }

  @Delete(':agent_id/sessions')
  async deleteSessions(
    @Tenant() tenant: TenantContext,
    @Param('agent_id') agentId: string,
    @Body() body: unknown,
  ) {
    const req = parsed(DeleteSessionsSchema, body);
    const out = await this.agents.deleteSessions(
      tenant.tenantId,
      agentId,
      req?.ids ?? undefined,
      req?.delete_all === true,
    );
    return ok(out.data, out.message);
  }

  @Delete(':agent_id/sessions/:session_id')
  async deleteSession(
    @Tenant() tenant: TenantContext,
    @Param('agent_id') agentId: string,
    @Param('session_id') sessionId: string,
  ) {
    await this.agents.getSession(tenant.tenantId, agentId, sessionId);
    const out = await this.agents.deleteSessions(tenant.tenantId, agentId, [sessionId], false);
    return ok(out.data ?? true, out.message);
  }
}
