import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { ToolType } from '@switchyard/contracts';
import type { McpServerRow as McpRow } from '@switchyard/persistence';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { pgCode } from '../registry/pg-errors';

const COLUMNS = `id, name, transport, command, args, env_sealed, url, headers_sealed, timeout_ms,
  max_output_bytes, enabled, tool_types, created_at, updated_at`;

/** What the gateway selects (COLUMNS). */
export type McpServerRow = Omit<McpRow, 'tenant_id'>;

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
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  async create(tenantId: string, s: NewMcpServer): Promise<McpServerRow> {
    try {
      const [row] = (await this.ds.query(
        `INSERT INTO mcp_servers (tenant_id, name, transport, command, args, env_sealed, url, headers_sealed,
           timeout_ms, max_output_bytes, enabled, tool_types)
         VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8, $9, $10, $11, $12::jsonb) RETURNING ${COLUMNS}`,
        [
          tenantId,
          s.name,
          s.transport,
          s.command,
          JSON.stringify(s.args),
          s.envSealed,
          s.url,
          s.headersSealed,
          s.timeoutMs,
          s.maxOutputBytes,
          s.enabled,
          JSON.stringify(s.toolTypes),
        ],
      )) as McpServerRow[];
      return row;
    } catch (err) {
      if (pgCode(err) === '23505') {
        // Names are global (they name nodes): say so without revealing whose server it is.
        throw new ApiException(ApiErrorCode.Conflict, `an MCP server named ${s.name} exists already`);
      }
      throw err;
    }
  }

  async list(tenantId: string): Promise<McpServerRow[]> {
    return (await this.ds.query(`SELECT ${COLUMNS} FROM mcp_servers WHERE tenant_id = $1 ORDER BY name`, [
      tenantId,
    ])) as McpServerRow[];
  }

  async getOrThrow(tenantId: string, id: string): Promise<McpServerRow> {
    const [row] = (await this.ds.query(
      `SELECT ${COLUMNS} FROM mcp_servers WHERE id = $1 AND tenant_id = $2`,
      [id, tenantId],
    )) as McpServerRow[];
    if (!row) {
      throw ApiException.notFound('MCP server');
    }
    return row;
  }

  async remove(tenantId: string, id: string): Promise<McpServerRow> {
    const [rows] = (await this.ds.query(
      `DELETE FROM mcp_servers WHERE id = $1 AND tenant_id = $2 RETURNING ${COLUMNS}`,
      [id, tenantId],
    )) as [McpServerRow[], number];
    if (rows.length === 0) {
      throw ApiException.notFound('MCP server');
    }
    return rows[0];
  }
}
