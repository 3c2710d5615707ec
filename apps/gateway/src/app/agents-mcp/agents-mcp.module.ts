import { Module } from '@nestjs/common';
import { AgentsRepository } from '../agents/agents.repository';
import { AgentsMcpController } from './agents-mcp.controller';
import { AgentsMcp } from './agents-mcp.service';

/** `/mcp`: the tenant's agents as the tools of an MCP server. */
@Module({ controllers: [AgentsMcpController], providers: [AgentsMcp, AgentsRepository] })
export class AgentsMcpModule {}
