import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, UseGuards } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SecretBox } from '@switchyard/config';
import { DataSourceOptionsSchema } from '@switchyard/contracts';
import { ApiKeyGuard, Tenant, type TenantContext } from '../auth/api-key.guard';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { ZodPipe } from '../http/zod-body.pipe';
import { pgCode } from '../registry/pg-errors';
import { IdSchema } from '../registry/registry.schemas';
import { type CreateDataSource, CreateDataSourceSchema, type DataSourceView } from './data-sources.schemas';

interface DataSourceRow {
  id: string;
  name: string;
  kind: 'postgres';
  dsn_sealed: string;
  options: unknown;
  created_at: Date;
}

const COLUMNS = 'id, name, kind, dsn_sealed, options, created_at';

/**
 * A tenant's data sources for the `sql_query` tool (API key). The DSN is sealed (SecretBox)
 * before it reaches a query and never returned; the tool-executor opens it, checks where it
 * points (private hosts only when SWITCHYARD_SQL_ALLOW_HOSTS lists them) and queries it in
 * read-only transactions. The gateway does not connect to it: that would let the API reach
 * arbitrary hosts.
 */
@Controller('v1/data-sources')
@UseGuards(ApiKeyGuard, RateLimitGuard)
export class DataSourcesController {
  constructor(
    @Inject(DataSource) private readonly ds: DataSource,
    @Inject(SecretBox) private readonly box: SecretBox,
  ) {}

  @Post()
  async create(
    @Tenant() tenant: TenantContext,
    @Body(new ZodPipe(CreateDataSourceSchema)) body: CreateDataSource,
  ): Promise<DataSourceView> {
    const options = DataSourceOptionsSchema.parse(body.options ?? {});
    try {
      const [row] = (await this.ds.query(
        `INSERT INTO data_sources (tenant_id, name, kind, dsn_sealed, options)
         VALUES ($1, $2, $3, $4, $5::jsonb) RETURNING ${COLUMNS}`,
        [tenant.tenantId, body.name, body.kind, this.box.seal(body.dsn), JSON.stringify(options)],
      )) as DataSourceRow[];
      return this.view(row);
    } catch (err) {
      if (pgCode(err) === '23505') {
        throw new ApiException(ApiErrorCode.Conflict, `a data source named ${body.name} exists already`);
      }
      throw err;
    }
  }

  @Get()
  async list(@Tenant() tenant: TenantContext) {
    const rows = (await this.ds.query(
      `SELECT ${COLUMNS} FROM data_sources WHERE tenant_id = $1 ORDER BY name`,
      [tenant.tenantId],
    )) as DataSourceRow[];
    return { data_sources: rows.map((r) => this.view(r)) };
  }

  @Delete(':id')
  @HttpCode(200)
  async remove(@Tenant() tenant: TenantContext, @Param('id', new ZodPipe(IdSchema)) id: string) {
    const [rows] = (await this.ds.query(
      `DELETE FROM data_sources WHERE id = $1 AND tenant_id = $2 RETURNING ${COLUMNS}`,
      [id, tenant.tenantId],
    )) as [DataSourceRow[], number];
    if (rows.length === 0) {
      throw ApiException.notFound('data source');
    }
    return { deleted: true, ...this.view(rows[0]) };
  }

  private view(row: DataSourceRow): DataSourceView {
    const url = new URL(this.box.open(row.dsn_sealed));
    return {
      id: row.id,
      name: row.name,
      kind: row.kind,
      host: url.port ? `${url.hostname}:${url.port}` : url.hostname,
      database: decodeURIComponent(url.pathname.slice(1)),
      options: DataSourceOptionsSchema.parse(row.options ?? {}),
      created_at: new Date(row.created_at).toISOString(),
    };
  }
}
