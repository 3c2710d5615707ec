import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { pgCode } from '../registry/pg-errors';

export interface DataSourceRow {
  id: string;
  name: string;
  kind: 'postgres' | 'mysql';
  dsn_sealed: string;
  options: unknown;
  created_at: Date;
}

export interface ToolOutputRow {
  id: string;
  run_id: string;
  tool: string;
  bytes: number;
  created_at: Date;
  content: unknown;
}

const COLUMNS = 'id, name, kind, dsn_sealed, options, created_at';

/** A tenant's data sources (DSNs stored sealed) and the full outputs of truncated tool results. */
@Injectable()
export class DataSourcesRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  /** A tenant's names are unique: a second one is a conflict. */
  async create(
    tenantId: string,
    source: { name: string; kind: 'postgres' | 'mysql'; dsnSealed: string; options: unknown },
  ): Promise<DataSourceRow> {
    try {
      const [row] = (await this.ds.query(
        `INSERT INTO data_sources (tenant_id, name, kind, dsn_sealed, options)
         VALUES ($1, $2, $3, $4, $5::jsonb) RETURNING ${COLUMNS}`,
        [tenantId, source.name, source.kind, source.dsnSealed, JSON.stringify(source.options)],
      )) as DataSourceRow[];
      return row;
    } catch (err) {
      if (pgCode(err) === '23505') {
        throw new ApiException(ApiErrorCode.Conflict, `a data source named ${source.name} exists already`);
      }
      throw err;
    }
  }

  async list(tenantId: string): Promise<DataSourceRow[]> {
    return (await this.ds.query(`SELECT ${COLUMNS} FROM data_sources WHERE tenant_id = $1 ORDER BY name`, [
      tenantId,
    ])) as DataSourceRow[];
  }

  async remove(tenantId: string, id: string): Promise<DataSourceRow> {
    const [rows] = (await this.ds.query(
      `DELETE FROM data_sources WHERE id = $1 AND tenant_id = $2 RETURNING ${COLUMNS}`,
      [id, tenantId],
    )) as [DataSourceRow[], number];
    if (rows.length === 0) {
      throw ApiException.notFound('data source');
    }
    return rows[0];
  }

  /** Another tenant's run, or an output of another run, is simply not found. */
  async toolOutput(tenantId: string, runId: string, id: string): Promise<ToolOutputRow> {
    const [row] = (await this.ds.query(
      `SELECT o.id, o.run_id, o.tool, o.bytes, o.created_at, o.content
         FROM tool_outputs o JOIN runs r ON r.id = o.run_id
        WHERE o.id = $1 AND o.run_id = $2 AND r.tenant_id = $3`,
      [id, runId, tenantId],
    )) as ToolOutputRow[];
    if (!row) {
      throw ApiException.notFound('tool output');
    }
    return row;
  }
}
