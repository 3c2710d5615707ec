import {
  Body,
  Controller,
  Get,
  Headers,
  HttpCode,
  Inject,
  Param,
  Post,
  Query,
  Res,
  UseGuards,
} from '@nestjs/common';
import type { Response } from 'express';
import { ApiKeyGuard, Tenant, type TenantContext } from '../auth/api-key.guard';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { ZodPipe } from '../http/zod-body.pipe';
import { ragflowEncoding } from './ragflow-events';
import { RagflowRuns } from './ragflow-run.source';
import { RunEventStreams } from './run-event-streams.service';
import { CreateRunSchema, ListRunsQuerySchema, ResumeSchema } from '@switchyard/contracts';
import {
  type CreateRunBody,
  CursorSchema,
  RunIdSchema,
  StreamFormatSchema,
  type ListRunsQuery,
} from './run.dto';
import { RunsService } from './runs.service';
import { runView } from './runs.views';

@Controller('v1/runs')
@UseGuards(ApiKeyGuard, RateLimitGuard)
export class RunsController {
  constructor(
    @Inject(RunsService) private readonly runs: RunsService,
    @Inject(RunEventStreams) private readonly streams: RunEventStreams,
    @Inject(RagflowRuns) private readonly ragflowRuns: RagflowRuns,
  ) {}

  @Post()
  async create(
    @Tenant() tenant: TenantContext,
    @Body(new ZodPipe(CreateRunSchema)) body: CreateRunBody,
    @Res({ passthrough: true }) res: Response,
  ) {
    const { created, run } = await this.runs.create(tenant.tenantId, body);
    res.status(created ? 202 : 200);
    return run;
  }

  @Post(':run_id/cancel')
  async cancel(
    @Tenant() tenant: TenantContext,
    @Param('run_id', new ZodPipe(RunIdSchema)) runId: string,
    @Res({ passthrough: true }) res: Response,
  ) {
    const { created, body } = await this.runs.cancel(tenant.tenantId, runId);
    res.status(created ? 202 : 200);
    return body;
  }

  /** Human input: the answer to a waiting run's question, validated against its input schema. */
  @Post(':run_id/resume')
  async resume(
    @Tenant() tenant: TenantContext,
    @Param('run_id', new ZodPipe(RunIdSchema)) runId: string,
    @Body(new ZodPipe(ResumeSchema)) body: { input: unknown },
    @Res({ passthrough: true }) res: Response,
  ) {
    const result = await this.runs.resume(tenant.tenantId, runId, body.input);
    res.status(202);
    return result;
  }

  @Get()
  async list(@Tenant() tenant: TenantContext, @Query(new ZodPipe(ListRunsQuerySchema)) q: ListRunsQuery) {
    const page = await this.runs.list(tenant.tenantId, q);
    return { runs: page.runs.map(runView), next_cursor: page.next_cursor };
  }

  @Get(':run_id')
  async get(@Tenant() tenant: TenantContext, @Param('run_id', new ZodPipe(RunIdSchema)) runId: string) {
    const run = await this.runs.get(tenant.tenantId, runId);
    return { ...runView(run), usage_by_model: await this.runs.usageByModel(run.id) };
  }

  @Get(':run_id/actions')
  @HttpCode(200)
  async actions(@Tenant() tenant: TenantContext, @Param('run_id', new ZodPipe(RunIdSchema)) runId: string) {
    return { actions: await this.runs.actions(tenant.tenantId, runId) };
  }

  @Get(':run_id/events')
  async events(
    @Tenant() tenant: TenantContext,
    @Param('run_id', new ZodPipe(RunIdSchema)) runId: string,
    @Query('after_seq', new ZodPipe(CursorSchema)) afterSeq: string | undefined,
    @Query('format', new ZodPipe(StreamFormatSchema)) format: 'switchyard' | 'ragflow' | undefined,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    await this.runs.get(tenant.tenantId, runId);
    const raw = afterSeq ?? lastEventId;
    if (raw !== undefined && !/^(\d+|\d+-\d+)$/.test(raw)) {
      throw new ApiException(
        ApiErrorCode.InvalidRequest,
        'Last-Event-ID must be an event id or an integer count',
      );
    }
    const encoding =
      format === 'ragflow'
        ? ragflowEncoding(this.ragflowRuns, await this.ragflowRuns.context(runId))
        : undefined;
    await this.streams.stream(res, runId, raw ?? null, encoding);
  }
}
