import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Query,
  Res,
  UseGuards,
} from '@nestjs/common';
import type { Response } from 'express';
import { z } from 'zod';
import { ForkRequestSchema, ListThreadsQuerySchema } from '@switchyard/contracts';
import { PgStateSource } from '@switchyard/persistence';
import { ApiKeyGuard, Tenant, type TenantContext } from '../auth/api-key.guard';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { ApiException } from '../http/api.exception';
import { ZodPipe } from '../http/zod-body.pipe';
import { RunIdSchema } from '../runs/run.dto';
import { runView } from '../runs/runs.views';
import { ForksService } from './forks.service';
import { ThreadDeletion } from './thread-deletion.service';
import { ThreadsRepository } from './threads.repository';
import { threadView } from './threads.views';

const VersionSchema = z.coerce.number().int().min(0).optional();
const VersionsQuerySchema = z
  .object({
    before: z.coerce.number().int().min(1).optional(),
    limit: z.coerce.number().int().min(1).max(1000).default(100),
  })
  .strict();

type ForkBody = z.infer<typeof ForkRequestSchema>;

@Controller('v1/threads')
@UseGuards(ApiKeyGuard, RateLimitGuard)
export class ThreadsController {
  constructor(
    @Inject(ThreadsRepository) private readonly threads: ThreadsRepository,
    @Inject(PgStateSource) private readonly states: PgStateSource,
    @Inject(ForksService) private readonly forks: ForksService,
    @Inject(ThreadDeletion) private readonly deletion: ThreadDeletion,
  ) {}

  @Get()
  async list(
    @Tenant() tenant: TenantContext,
    @Query(new ZodPipe(ListThreadsQuerySchema)) q: z.infer<typeof ListThreadsQuerySchema>,
  ) {
    const page = await this.threads.list(tenant.tenantId, q);
    return { threads: page.threads.map(threadView), next_cursor: page.next_cursor };
  }

  /**
   * Deletes the thread and what its runs wrote (ThreadsRepository.delete), then the runs' event
   * streams in Redis. 409 while a run of it is queued, running or waiting: cancel it first.
   */
  @Delete(':thread_id')
  @HttpCode(200)
  async remove(
    @Tenant() tenant: TenantContext,
    @Param('thread_id', new ZodPipe(RunIdSchema)) threadId: string,
  ) {
    const runs = await this.deletion.delete(tenant.tenantId, threadId);
    return { deleted: true, thread_id: threadId, runs_deleted: runs.length };
  }

  @Get(':thread_id')
  async get(@Tenant() tenant: TenantContext, @Param('thread_id', new ZodPipe(RunIdSchema)) threadId: string) {
    return threadView(await this.threads.threadOrThrow(tenant.tenantId, threadId));
  }

  @Get(':thread_id/runs')
  async listRuns(
    @Tenant() tenant: TenantContext,
    @Param('thread_id', new ZodPipe(RunIdSchema)) threadId: string,
  ) {
    await this.threads.threadOrThrow(tenant.tenantId, threadId);
    return { runs: (await this.threads.runsOf(threadId)).map(runView) };
  }

  /** The RuntimeState at a version (default: the latest), rebuilt from snapshot + deltas. */
  @Get(':thread_id/state')
  async state(
    @Tenant() tenant: TenantContext,
    @Param('thread_id', new ZodPipe(RunIdSchema)) threadId: string,
    @Query('version', new ZodPipe(VersionSchema)) version: number | undefined,
  ) {
    const t = await this.threads.threadOrThrow(tenant.tenantId, threadId);
    if (t.version === 0) {
      throw ApiException.notFound('thread state (no run has started yet)');
    }
    if (version !== undefined && (version < 1 || version > t.version)) {
      throw ApiException.notFound(`state version ${version} (the thread has versions 1..${t.version})`);
    }
    return this.states.load(threadId, version ?? t.version);
  }

  /**
   * The thread's versions, newest first: which run's which node wrote each; a `fork` version
   * names the version its branch started from (`from_version`).
   */
  @Get(':thread_id/versions')
  async versions(
    @Tenant() tenant: TenantContext,
    @Param('thread_id', new ZodPipe(RunIdSchema)) threadId: string,
    @Query(new ZodPipe(VersionsQuerySchema)) q: z.infer<typeof VersionsQuerySchema>,
  ) {
    const t = await this.threads.threadOrThrow(tenant.tenantId, threadId);
    const rows = await this.threads.versions(
      threadId,
      Math.min(t.version, (q.before ?? Infinity) - 1),
      q.limit,
    );
    return {
      versions: rows.map((r) => ({
        version: r.version,
        run_id: r.run_id,
        node: r.node,
        created_at: new Date(r.created_at).toISOString(),
        ...(r.from_version !== null ? { from_version: r.from_version } : {}),
        // The first version of a compacted history (its run and node are gone with the versions before it).
        ...(r.compacted ? { compacted: true } : {}),
      })),
    };
  }

  /**
   * Branches the thread from `version`: a run whose first action (`fork`) takes the thread back
   * to that version with `edits` applied, then runs what was pending there (or, with `input`, a
   * new turn). Nothing before the fork point runs again; the versions after it stay readable.
   */
  @Post(':thread_id/fork')
  @HttpCode(201)
  async fork(
    @Tenant() tenant: TenantContext,
    @Param('thread_id', new ZodPipe(RunIdSchema)) threadId: string,
    @Body(new ZodPipe(ForkRequestSchema)) body: ForkBody,
    @Res({ passthrough: true }) res: Response,
  ) {
    const forked = await this.forks.fork(tenant.tenantId, threadId, {
      version: body.version,
      edits: body.edits,
      mode: body.input ? 'turn' : body.continue ? 'continue' : 'record',
      ...(body.input ? { input: body.input } : {}),
      ...(body.agent_id ? { agent_id: body.agent_id } : {}),
      ...(body.agent_version ? { agent_version: body.agent_version } : {}),
      ...(body.request_id ? { request_id: body.request_id } : {}),
      multitask: body.multitask,
      metadata: body.metadata,
      ...(body.breakpoints ? { breakpoints: body.breakpoints } : {}),
    });
    if (!forked.created) {
      res.status(200);
    }
    res.setHeader('Location', `/v1/runs/${forked.run.run_id}`);
    const { created: _created, ...view } = forked;
    return view;
  }
}
