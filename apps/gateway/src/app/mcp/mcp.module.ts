import { Module } from '@nestjs/common';
import { McpServersController } from './mcp-servers.controller';
import { McpServersRepository } from './mcp-servers.repository';

/** A tenant's MCP servers, whose tools the tool-executor serves as nodes. */
@Module({ controllers: [McpServersController], providers: [McpServersRepository] })
export class McpModule {}
