import { Inject, Injectable } from '@nestjs/common';
import type { Selectable } from 'kysely';
import { DatabaseError } from 'pg';
import { DataSource } from 'typeorm';
import type { ToolType } from '@switchyard/contracts';
import {
  type DB,
  type Db,
  kyselyOf,
  type McpServerRow as McpRow,
  mcpServerRowOf,
} from '@switchyard/persistence';
import { ApiErrorCode, ApiException } from '../http/api.exception';

const COLUMNS = [
  'id',
  'name',
  'transport',
  'command',
  'args',
  'env_sealed',
  'url',
  'headers_sealed',
  'timeout_ms',
  'max_output_bytes',
  'enabled',
  'tool_types',
  'created_at',
  'updated_at',
] as const;

/** What the gateway selects (COLUMNS). */
export type McpServerRow = Omit<McpRow, 'tenant_id'>;

/** The JSON and checked text columns narrowed once to what `create` writes. */
function rowOf(r: Pick<Selectable<DB['mcp_servers']>, (typeof COLUMNS)[number]>): McpServerRow {
  return mcpServerRowOf(r);
}

export interface NewMcpServer {
  name: string;
  transport: 'stdio' | 'http';
  command: string | null;
  args: string[];
  envSealed: string | null;
  url: string | null;
  headersSealed: string | null;
  timeoutMs: number;
  maxOutputBytes: number;
  enabled: boolean;
  toolTypes: Record<string, ToolType[]>;
}

/** A tenant's MCP servers (secrets stored sealed); every query is scoped to the tenant. */
@Injectable()
export class McpServersRepository {
  private readonly db: Db;

  constructor(@Inject(DataSource) ds: DataSource) {
    this.db = kyselyOf(ds);
  }

  async create(tenantId: string, s: NewMcpServer): Promise<McpServerRow> {
    try {
      const row = await this.db
        .insertInto('mcp_servers')
        .values({
          tenant_id: tenantId,
          name: s.name,
          transport: s.transport,
          command: s.command,
          args: JSON.stringify(s.args),
          env_sealed: s.envSealed,
          url: s.url,
          headers_sealed: s.headersSealed,
          timeout_ms: s.timeoutMs,
          max_output_bytes: s.maxOutputBytes,
          enabled: s.enabled,
          tool_types: JSON.stringify(s.toolTypes),
        })
        .returning(COLUMNS)
        .executeTakeFirstOrThrow();
      return rowOf(row);
    } catch (err) {
      // Kysely raises pg's own error (no TypeORM QueryFailedError around it).
      if (err instanceof DatabaseError && err.code === '23505') {
        // Names are global (they name nodes): say so without revealing whose server it is.
        throw new ApiException(ApiErrorCode.Conflict, `an MCP server named ${s.name} exists already`);
      }
      throw err;
    }
  }

  async list(tenantId: string): Promise<McpServerRow[]> {
    const rows = await this.db
      .selectFrom('mcp_servers')
      .select(COLUMNS)
      .where('tenant_id', '=', tenantId)
      .orderBy('name')
      .execute();
    return rows.map(rowOf);
  }

  async getOrThrow(tenantId: string, id: string): Promise<McpServerRow> {
    const row = await this.db
      .selectFrom('mcp_servers')
      .select(COLUMNS)
      .where('id', '=', id)
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
    if (!row) {
      throw ApiException.notFound('MCP server');
    }
    return rowOf(row);
  }

  async remove(tenantId: string, id: string): Promise<McpServerRow> {
    const row = await this.db
      .deleteFrom('mcp_servers')
      .where('id', '=', id)
      .where('tenant_id', '=', tenantId)
      .returning(COLUMNS)
      .executeTakeFirst();
    if (!row) {
      throw ApiException.notFound('MCP server');
    }
    return rowOf(row);
  }
}
