import { sql } from 'kysely';
import type { DataSource } from 'typeorm';
import { type Db, kyselyOf } from '@switchyard/persistence';

/** What the MCP server reads of the runs its tool calls started (runs.metadata `mcp_key_id`, `mcp_request_id`). */
export class AgentsMcpRepository {
  private readonly db: Db;

  constructor(ds: DataSource) {
    this.db = kyselyOf(ds);
  }

  /** The newest unfinished run of the tenant that this key's MCP request `requestId` started. */
  async activeRunOfRequest(tenantId: string, keyId: string, requestId: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('runs')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where(sql<string>`metadata->>'mcp_key_id'`, '=', keyId)
      .where(sql<string>`metadata->>'mcp_request_id'`, '=', requestId)
      .where('status', 'in', ['queued', 'running', 'waiting'])
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row?.id;
  }
}
