import { All, Controller, Get, Inject, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { AgentCard } from '@a2a-js/sdk';
import { agentCardHandler, jsonRpcHandler } from '@a2a-js/sdk/server/express';
import { DEFAULT_AGENT_ID } from '@switchyard/contracts';
import { AgentsRepository } from '../agents/agents.repository';
import { ApiKeyGuard, Tenant, type TenantContext } from '../auth/api-key.guard';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { ApiException } from '../http/api.exception';
import { AgentModels } from '../openai/agent-models.service';
import { OpenAiException } from '../openai/openai.exception';
import { A2aTasks, type A2aCaller } from './a2a.service';
import { agentCardOf } from './a2a.views';

/**
 * Each agent of the tenant as an A2A server: its card at `/a2a/<agent>/.well-known/agent-card.json`
 * and JSON-RPC at `POST /a2a/<agent>` (A2A 1.0, and 0.3 for a request that says so or names no
 * version), `<agent>` an agent's id or name, or `default`; the tenant's API key as a bearer token.
 * The SDK's Express transports speak the wire; `A2aTasks` answers over runs.
 */
@Controller('a2a/:agent')
@UseGuards(ApiKeyGuard, RateLimitGuard)
export class A2aController {
  constructor(
    @Inject(A2aTasks) private readonly tasks: A2aTasks,
    @Inject(AgentModels) private readonly models: AgentModels,
    @Inject(AgentsRepository) private readonly agents: AgentsRepository,
  ) {}

  @Get('.well-known/agent-card.json')
  async card(
    @Tenant() tenant: TenantContext,
    @Param('agent') agent: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const { card } = await this.resolve(tenant.tenantId, agent, req);
    const handler = agentCardHandler({
      agentCardProvider: () => Promise.resolve(AgentCard.toJSON(card) as AgentCard),
      cache: { maxAge: 0 },
      legacyCompat: { enabled: true },
    });
    await mounted(handler, req, res);
  }

  @Post()
  async rpc(
    @Tenant() tenant: TenantContext,
    @Param('agent') agent: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const { caller, card } = await this.resolve(tenant.tenantId, agent, req);
    // A client that goes away stops what follows its runs (a stream, a blocking send).
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    const handler = jsonRpcHandler({
      requestHandler: this.tasks.handlerFor(caller, card, gone.signal),
      userBuilder: () => Promise.resolve({ isAuthenticated: true, userName: tenant.keyId }),
      legacyCompat: { enabled: true },
    });
    await mounted(handler, req, res);
  }

  /** Nothing else is served at an agent's endpoint. */
  @All()
  other(@Res() res: Response): void {
    res
      .status(405)
      .set('Allow', 'POST')
      .json({
        jsonrpc: '2.0',
        error: {
          code: -32600,
          message: "POST JSON-RPC requests here; the agent's card is at .well-known/agent-card.json",
        },
        id: null,
      });
  }

  /** The agent the path names (404 when the tenant has none), and its card. */
  private async resolve(
    tenantId: string,
    agent: string,
    req: Request,
  ): Promise<{ caller: A2aCaller; card: AgentCard }> {
    let resolved;
    try {
      resolved = await this.models.resolve(tenantId, agent);
    } catch (err) {
      if (err instanceof OpenAiException) {
        throw err.status === 404
          ? ApiException.notFound(`agent "${agent}"`)
          : new ApiException(err.code as never, err.message);
      }
      throw err;
    }
    const url = `${req.protocol}://${req.get('host') ?? 'localhost'}/a2a/${encodeURIComponent(agent)}`;
    if (resolved.agentId === DEFAULT_AGENT_ID) {
      return {
        caller: { tenantId, agentId: DEFAULT_AGENT_ID, graph: false },
        card: agentCardOf(
          {
            id: DEFAULT_AGENT_ID,
            name: 'Switchyard default agent',
            description: "Switchyard's default agent: plans the task, uses its tools, reflects and answers.",
            kind: 'agent',
            version: 'latest',
          },
          url,
        ),
      };
    }
    const row = await this.agents.getOrThrow(tenantId, resolved.agentId);
    const graph = row.draft.kind === 'graph';
    const prompt = row.draft.system_prompt?.trim();
    return {
      caller: { tenantId, agentId: row.id, graph },
      card: agentCardOf(
        {
          id: row.id,
          name: row.name,
          description: `The Switchyard ${graph ? 'graph agent' : 'agent'} "${row.name}"${prompt ? `: ${prompt.slice(0, 300)}` : '.'}`,
          kind: graph ? 'graph agent' : 'agent',
          version: resolved.model.version === null ? 'draft' : String(resolved.model.version),
        },
        url,
      ),
    };
  }
}

/** Runs an SDK Express handler (mounted at `/`) on this request. */
function mounted(
  handler: (req: Request, res: Response, next: NextFunction) => void,
  req: Request,
  res: Response,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    req.url = '/';
    res.on('finish', () => resolve());
    res.on('close', () => resolve());
    handler(req, res, (err?: unknown) => {
      if (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
        return;
      }
      if (!res.headersSent) {
        res.status(404).json({ jsonrpc: '2.0', error: { code: -32601, message: 'not found' }, id: null });
      }
      resolve();
    });
  });
}
