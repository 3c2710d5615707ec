import { Body, Controller, Delete, HttpCode, Inject, Param, Patch, Post, UseGuards } from '@nestjs/common';
import { ApiKeyGuard, Tenant, type TenantContext } from '../auth/api-key.guard';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { ZodPipe } from '../http/zod-body.pipe';
import { Crons } from './crons.service';
import { type CronRow, CronsRepository } from './crons.repository';
import {
  type CronCreate,
  CronCreateSchema,
  type CronSearch,
  CronSearchSchema,
  type CronUpdate,
  CronUpdateSchema,
} from './langgraph.schemas';
import { pick } from './langgraph.views';

/** Crons (LangGraph's `client.crons`): stateless or on a thread; see Crons. */
@Controller()
@UseGuards(ApiKeyGuard, RateLimitGuard)
export class LangGraphCronsController {
  constructor(
    @Inject(Crons) private readonly crons: Crons,
    @Inject(CronsRepository) private readonly repo: CronsRepository,
  ) {}

  @Post('runs/crons')
  @HttpCode(200)
  async create(@Tenant() tenant: TenantContext, @Body(new ZodPipe(CronCreateSchema)) body: CronCreate) {
    return cronView(await this.crons.create(tenant.tenantId, null, body));
  }

  @Post('threads/:thread_id/runs/crons')
  @HttpCode(200)
  async createForThread(
    @Tenant() tenant: TenantContext,
    @Param('thread_id') threadId: string,
    @Body(new ZodPipe(CronCreateSchema)) body: CronCreate,
  ) {
    return cronView(await this.crons.create(tenant.tenantId, threadId, body));
  }

  @Post('runs/crons/search')
  @HttpCode(200)
  async search(@Tenant() tenant: TenantContext, @Body(new ZodPipe(CronSearchSchema)) q: CronSearch) {
    const assistant = await this.crons.assistantOf(tenant.tenantId, q.assistant_id);
    if (assistant === null) {
      return [];
    }
    const views = (await this.repo.search(tenant.tenantId, { ...q, assistant_id: assistant })).map(cronView);
    return q.select ? views.map((v) => pick(v, q.select ?? [])) : views;
  }

  @Post('runs/crons/count')
  @HttpCode(200)
  async count(
    @Tenant() tenant: TenantContext,
    @Body(new ZodPipe(CronSearchSchema.pick({ assistant_id: true, thread_id: true })))
    q: Pick<CronSearch, 'assistant_id' | 'thread_id'>,
  ) {
    const assistant = await this.crons.assistantOf(tenant.tenantId, q.assistant_id);
    return assistant === null ? 0 : this.repo.count(tenant.tenantId, { ...q, assistant_id: assistant });
  }

  @Patch('runs/crons/:cron_id')
  async update(
    @Tenant() tenant: TenantContext,
    @Param('cron_id') id: string,
    @Body(new ZodPipe(CronUpdateSchema)) patch: CronUpdate,
  ) {
    return cronView(await this.crons.update(tenant.tenantId, id, patch));
  }

  @Delete('runs/crons/:cron_id')
  @HttpCode(204)
  async remove(@Tenant() tenant: TenantContext, @Param('cron_id') id: string): Promise<void> {
    await this.repo.delete(tenant.tenantId, id);
  }
}

function cronView(c: CronRow) {
  const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);
  return {
    cron_id: c.id,
    assistant_id: c.assistant_id,
    thread_id: c.thread_id,
    schedule: c.schedule,
    timezone: c.timezone,
    end_time: iso(c.end_time),
    payload: c.payload,
    metadata: c.metadata,
    enabled: c.enabled,
    next_run_date: iso(c.next_run_at),
    last_run_id: c.last_run_id,
    last_error: c.last_error,
    user_id: null,
    created_at: iso(c.created_at),
    updated_at: iso(c.updated_at),
  };
}
