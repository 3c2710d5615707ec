import { Controller, Get, Inject, Param, Query, UseGuards } from '@nestjs/common';
import { z } from 'zod';
import { DataSource } from 'typeorm';
import { PgStateSource } from '@switchyard/persistence';
import { ApiKeyGuard, Tenant, type TenantContext } from '../auth/api-key.guard';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { ApiException } from '../http/api.exception';
import { ZodPipe } from '../http/zod-body.pipe';
import { RunIdSchema } from '../runs/run.dto';
import { type RunRecord, RunsService, runView } from '../runs/runs.service';

const VersionSchema = z.coerce.number().int().min(0).optional();

@Controller('v1/threads')
@UseGuards(ApiKeyGuard, RateLimitGuard)
export class ThreadsController {
  constructor(
    @Inject(DataSource) private readonly ds: DataSource,
    @Inject(PgStateSource) private readonly states: PgStateSource,
    @Inject(RunsService) private readonly runs: RunsService,
  ) {}

  @Get(':thread_id')
  async get(@Tenant() tenant: TenantContext, @Param('thread_id', new ZodPipe(RunIdSchema)) threadId: string) {
    const t = await this.thread(tenant.tenantId, threadId);
    return {
      thread_id: t.id,
      agent_id: t.agent_id,
      created_at: new Date(t.created_at).toISOString(),
      turns: t.turns,
      version: t.version,
      active_run_id: t.active_run_id,
      title: t.title,
    };
  }

  @Get(':thread_id/runs')
  async listRuns(
    @Tenant() tenant: TenantContext,
    @Param('thread_id', new ZodPipe(RunIdSchema)) threadId: string,
  ) {
    await this.thread(tenant.tenantId, threadId);
    const rows = (await this.ds.query(
      `SELECT id, tenant_id, thread_id, agent_id, turn, status, created_at, started_at, finished_at, steps, usage,
              output, error, metadata
       FROM runs WHERE thread_id = $1 ORDER BY created_at`,
      [threadId],
    )) as RunRecord[];
    return { runs: rows.map(runView) };
  }

  /** The RuntimeState at a version (default: the latest), rebuilt from snapshot + deltas. */
  @Get(':thread_id/state')
  async state(
    @Tenant() tenant: TenantContext,
    @Param('thread_id', new ZodPipe(RunIdSchema)) threadId: string,
    @Query('version', new ZodPipe(VersionSchema)) version: number | undefined,
  ) {
    const t = await this.thread(tenant.tenantId, threadId);
    if (t.version === 0) {
      throw ApiException.notFound('thread state (no run has started yet)');
    }
    if (version !== undefined && (version < 1 || version > t.version)) {
      throw ApiException.notFound(`state version ${version} (the thread has versions 1..${t.version})`);
    }
    return this.states.load(threadId, version ?? t.version);
  }

  private async thread(tenantId: string, threadId: string) {
    const [t] = (await this.ds.query(
      'SELECT id, agent_id, created_at, turns, version, active_run_id, title FROM threads WHERE id = $1 AND tenant_id = $2',
      [threadId, tenantId],
    )) as {
      id: string;
      agent_id: string;
      created_at: Date;
      turns: number;
      version: number;
      active_run_id: string | null;
      title: string | null;
    }[];
    if (!t) {
      throw ApiException.notFound('thread');
    }
    return t;
  }
}
