import { Module } from '@nestjs/common';
import { McpConfig } from './mcp.config';
import { McpManager } from './mcp-manager';
import { McpServersRepository } from './mcp-servers.repository';
import { McpToolsController } from './mcp-tools.controller';

/** MCP servers' tools as nodes (needs PlatformModule and WorkerModule, both global). */
@Module({
  controllers: [McpToolsController],
  providers: [{ provide: McpConfig, useFactory: () => new McpConfig() }, McpServersRepository, McpManager],
  exports: [McpManager],
})
export class McpModule {}
