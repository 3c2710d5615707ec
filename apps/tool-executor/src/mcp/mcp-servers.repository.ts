import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { McpServerRow } from '@switchyard/persistence';

/** What the manager selects of each enabled server. */
export type EnabledMcpServer = Omit<McpServerRow, 'enabled' | 'created_at'>;

/** The tenants' MCP servers (`mcp_servers`), as the tool-executor reads them. */
@Injectable()
export class McpServersRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  /** Every tenant's enabled servers, with their sealed secrets. */
  async enabled(): Promise<EnabledMcpServer[]> {
    return (await this.ds.query(
      `SELECT id, tenant_id, name, transport, command, args, env_sealed, url, headers_sealed, timeout_ms,
              max_output_bytes, tool_types, updated_at
       FROM mcp_servers WHERE enabled`,
    )) as EnabledMcpServer[];
  }
}
