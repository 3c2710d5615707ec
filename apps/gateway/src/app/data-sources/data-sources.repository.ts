import { Inject, Injectable } from '@nestjs/common';
import { DatabaseError } from 'pg';
import { DataSource } from 'typeorm';
import { type Db, kyselyOf } from '@switchyard/persistence';
import { ApiErrorCode, ApiException } from '../http/api.exception';

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

const COLUMNS = ['id', 'name', 'kind', 'dsn_sealed', 'options', 'created_at'] as const;

/** `kind` as the table's check and `create` keep it. */
function rowOf(r: Omit<DataSourceRow, 'kind'> & { kind: string }): DataSourceRow {
  return { ...r, kind: r.kind as DataSourceRow['kind'] };
}

/** A tenant's data sources (DSNs stored sealed) and the full outputs of truncated tool results. */
@Injectable()
export class DataSourcesRepository {
  private readonly db: Db;

  constructor(@Inject(DataSource) ds: DataSource) {
    this.db = kyselyOf(ds);
  }

  /** A tenant's names are unique: a second one is a conflict. */
  async create(
    tenantId: string,
    source: { name: string; kind: 'postgres' | 'mysql'; dsnSealed: string; options: unknown },
  ): Promise<DataSourceRow> {
    try {
      const row = await this.db
        .insertInto('data_sources')
        .values({
          tenant_id: tenantId,
          name: source.name,
          kind: source.kind,
          dsn_sealed: source.dsnSealed,
          options: JSON.stringify(source.options),
        })
        .returning(COLUMNS)
        .executeTakeFirstOrThrow();
      return rowOf(row);
    } catch (err) {
      // Kysely raises pg's own error (no TypeORM QueryFailedError around it).
      if (err instanceof DatabaseError && err.code === '23505') {
        throw new ApiException(ApiErrorCode.Conflict, `a data source named ${source.name} exists already`);
      }
      throw err;
    }
  }

  async list(tenantId: string): Promise<DataSourceRow[]> {
    const rows = await this.db
      .selectFrom('data_sources')
      .select(COLUMNS)
      .where('tenant_id', '=', tenantId)
      .orderBy('name')
      .execute();
    return rows.map(rowOf);
  }

  async remove(tenantId: string, id: string): Promise<DataSourceRow> {
    const row = await this.db
      .deleteFrom('data_sources')
      .where('id', '=', id)
      .where('tenant_id', '=', tenantId)
      .returning(COLUMNS)
      .executeTakeFirst();
    if (!row) {
      throw ApiException.notFound('data source');
    }
    return rowOf(row);
  }

  /** Another tenant's run, or an output of another run, is simply not found. */
  async toolOutput(tenantId: string, runId: string, id: string): Promise<ToolOutputRow> {
    const row = await this.db
      .selectFrom('tool_outputs as o')
      .innerJoin('runs as r', 'r.id', 'o.run_id')
      .select(['o.id', 'o.run_id', 'o.tool', 'o.bytes', 'o.created_at', 'o.content'])
      .where('o.id', '=', id)
      .where('o.run_id', '=', runId)
      .where('r.tenant_id', '=', tenantId)
      .executeTakeFirst();
    if (!row) {
      throw ApiException.notFound('tool output');
    }
    return row;
  }
}
