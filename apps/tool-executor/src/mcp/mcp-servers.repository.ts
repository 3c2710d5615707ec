import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type Db, kyselyOf, type McpServerRow, mcpServerRowOf } from '@switchyard/persistence';

/** What the manager selects of each enabled server. */
export type EnabledMcpServer = Omit<McpServerRow, 'enabled' | 'created_at'>;

/** The tenants' MCP servers (`mcp_servers`), as the tool-executor reads them. */
@Injectable()
export class McpServersRepository {
  private readonly db: Db;

  constructor(@Inject(DataSource) ds: DataSource) {
    this.db = kyselyOf(ds);
  }

  /** Every tenant's enabled servers, with their sealed secrets. */
  async enabled(): Promise<EnabledMcpServer[]> {
    const rows = await this.db
      .selectFrom('mcp_servers')
      .select([
        'id',
        'tenant_id',
        'name',
        'transport',
        'command',
        'args',
        'env_sealed',
        'url',
        'headers_sealed',
        'timeout_ms',
        'max_output_bytes',
        'tool_types',
        'updated_at',
      ])
      .where('enabled', '=', true)
      .execute();
    return rows.map(mcpServerRowOf);
  }
}
