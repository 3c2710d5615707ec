import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, UseGuards } from '@nestjs/common';
import { SecretBox } from '@switchyard/config';
import { DataSourceOptionsSchema } from '@switchyard/contracts';
import { ApiKeyGuard, Tenant, type TenantContext } from '../auth/api-key.guard';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { ZodPipe } from '../http/zod-body.pipe';
import { IdSchema } from '../registry/registry.schemas';
import { type DataSourceRow, DataSourcesRepository } from './data-sources.repository';
import { type CreateDataSource, CreateDataSourceSchema, type DataSourceView } from './data-sources.schemas';

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
    @Inject(DataSourcesRepository) private readonly sources: DataSourcesRepository,
    @Inject(SecretBox) private readonly box: SecretBox,
  ) {}

  @Post()
  async create(
    @Tenant() tenant: TenantContext,
    @Body(new ZodPipe(CreateDataSourceSchema)) body: CreateDataSource,
  ): Promise<DataSourceView> {
    const row = await this.sources.create(tenant.tenantId, {
      name: body.name,
      kind: body.kind,
      dsnSealed: this.box.seal(body.dsn),
      options: DataSourceOptionsSchema.parse(body.options ?? {}),
    });
    return this.view(row);
  }

  @Get()
  async list(@Tenant() tenant: TenantContext) {
    return { data_sources: (await this.sources.list(tenant.tenantId)).map((r) => this.view(r)) };
  }

  @Delete(':id')
  @HttpCode(200)
  async remove(@Tenant() tenant: TenantContext, @Param('id', new ZodPipe(IdSchema)) id: string) {
    return { deleted: true, ...this.view(await this.sources.remove(tenant.tenantId, id)) };
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
