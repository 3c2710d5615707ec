import { All, Controller, Inject, Post, Req, Res, UseGuards } from '@nestjs/common';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Request, Response } from 'express';
import { ApiKeyGuard, Tenant, type TenantContext } from '../auth/api-key.guard';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { AgentsMcp } from './agents-mcp.service';
import { canElicit, elicitationAnswers, sessionIdFor } from './mcp-elicitation';

/**
 * The tenant's agents as an MCP server over Streamable HTTP (the official SDK's transport), with
 * the tenant's API key as a bearer token. Stateless: each POST carries its JSON-RPC messages and
 * gets its answer (a tool call's progress streams as SSE on that response), so any gateway
 * replica serves any request — the session id only records what the client can do.
 */
@Controller('mcp')
@UseGuards(ApiKeyGuard, RateLimitGuard)
export class AgentsMcpController {
  constructor(@Inject(AgentsMcp) private readonly mcp: AgentsMcp) {}

  @Post()
  async post(@Tenant() tenant: TenantContext, @Req() req: Request, @Res() res: Response): Promise<void> {
    const answers = elicitationAnswers(req.body);
    if (answers) {
      // The client's answers to questions a tool call asked (on whichever replica it runs).
      await this.mcp.answerElicitations(tenant.tenantId, answers);
      res.status(202).end();
      return;
    }
    // No state is kept: an initialize is answered with a session id that records whether the
    // client can be asked (elicitation); later requests only read it back.
    const init = isInitialize(req.body);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: init ? () => sessionIdFor(init.params.capabilities) : undefined,
    });
    const server = this.mcp.serverFor(tenant, {
      send: (message, relatedRequestId) => transport.send(message, { relatedRequestId }),
      elicitation: canElicit(req.header('mcp-session-id')),
    });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  }

  /** No sessions, so no server-initiated stream (GET) and nothing to end (DELETE). */
  @All()
  other(@Res() res: Response): void {
    res
      .status(405)
      .set('Allow', 'POST')
      .json({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Method not allowed: this MCP server is stateless; POST only' },
        id: null,
      });
  }
}

/** The initialize request a POST carries, if it carries one. */
function isInitialize(body: unknown): { params: { capabilities?: unknown } } | null {
  const messages = Array.isArray(body) ? (body as unknown[]) : [body];
  const init = messages.find((m) => (m as { method?: unknown } | null)?.method === 'initialize') as
    { params?: { capabilities?: unknown } } | undefined;
  return init ? { params: init.params ?? {} } : null;
}
