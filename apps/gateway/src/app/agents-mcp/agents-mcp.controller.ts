import { All, Controller, Inject, Post, Req, Res, UseGuards } from '@nestjs/common';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Request, Response } from 'express';
import { ApiKeyGuard, Tenant, type TenantContext } from '../auth/api-key.guard';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { AgentsMcp } from './agents-mcp.service';

/**
 * The tenant's agents as an MCP server over Streamable HTTP (the official SDK's transport), with
 * the tenant's API key as a bearer token. Stateless: each POST carries its JSON-RPC messages and
 * gets its answer (a tool call's progress streams as SSE on that response), so any gateway
 * replica serves any request.
 */
@Controller('mcp')
@UseGuards(ApiKeyGuard, RateLimitGuard)
export class AgentsMcpController {
  constructor(@Inject(AgentsMcp) private readonly mcp: AgentsMcp) {}

  @Post()
  async post(@Tenant() tenant: TenantContext, @Req() req: Request, @Res() res: Response): Promise<void> {
    const server = this.mcp.serverFor(tenant);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
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
