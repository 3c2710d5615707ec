import { randomUUID } from 'node:crypto';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, UseGuards } from '@nestjs/common';
import { PgStateSource } from '@switchyard/persistence';
import { ApiKeyGuard, Tenant, type TenantContext } from '../auth/api-key.guard';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { ZodPipe } from '../http/zod-body.pipe';
import { LangGraphRepository, type ThreadRow } from './langgraph.repository';
import { type History, HistorySchema, type ThreadCreate, ThreadCreateSchema } from './langgraph.schemas';
import { threadStateView, threadView, pick } from './langgraph.views';

/**
 * LangGraph threads = Switchyard threads; a checkpoint is a thread version (`checkpoint_id` is
 * the version number as a string), its state the RuntimeState at that version.
 */
@Controller('threads')
@UseGuards(ApiKeyGuard, RateLimitGuard)
export class LangGraphThreadsController {
  constructor(
    @Inject(LangGraphRepository) private readonly repo: LangGraphRepository,
    @Inject(PgStateSource) private readonly states: PgStateSource,
  ) {}

  @Post()
  @HttpCode(200)
  async create(@Tenant() tenant: TenantContext, @Body(new ZodPipe(ThreadCreateSchema)) body: ThreadCreate) {
    const id = body.thread_id ?? randomUUID();
    const created = await this.repo.createThread(tenant.tenantId, id, body.metadata);
    if (!created && body.if_exists === 'raise') {
      throw new ApiException(
        ApiErrorCode.Conflict,
        `thread ${id} already exists (send if_exists: "do_nothing" to get it)`,
      );
    }
    return this.view(await this.repo.threadOrThrow(tenant.tenantId, id));
  }

  @Get(':thread_id')
  async get(@Tenant() tenant: TenantContext, @Param('thread_id') threadId: string) {
    return this.view(await this.repo.threadOrThrow(tenant.tenantId, threadId));
  }

  @Get(':thread_id/state')
  async state(@Tenant() tenant: TenantContext, @Param('thread_id') threadId: string) {
    const t = await this.repo.threadOrThrow(tenant.tenantId, threadId);
    return this.stateAt(t, t.version);
  }

  @Get(':thread_id/state/:checkpoint_id')
  async stateAtCheckpoint(
    @Tenant() tenant: TenantContext,
    @Param('thread_id') threadId: string,
    @Param('checkpoint_id') checkpointId: string,
  ) {
    const t = await this.repo.threadOrThrow(tenant.tenantId, threadId);
    return this.stateAt(t, versionOf(t, checkpointId));
  }

  /** The SDK's form for a checkpoint given as an object. */
  @Post(':thread_id/state/checkpoint')
  @HttpCode(200)
  async stateAtCheckpointObject(
    @Tenant() tenant: TenantContext,
    @Param('thread_id') threadId: string,
    @Body() body: { checkpoint?: { checkpoint_id?: unknown } },
  ) {
    const t = await this.repo.threadOrThrow(tenant.tenantId, threadId);
    const id = body?.checkpoint?.checkpoint_id;
    if (typeof id !== 'string') {
      throw new ApiException(ApiErrorCode.InvalidRequest, 'checkpoint.checkpoint_id is required');
    }
    return this.stateAt(t, versionOf(t, id));
  }

  /** The thread's states, newest first (`before` and `checkpoint` name versions; `metadata` filters). */
  @Post(':thread_id/history')
  @HttpCode(200)
  async history(
    @Tenant() tenant: TenantContext,
    @Param('thread_id') threadId: string,
    @Body(new ZodPipe(HistorySchema)) q: History,
  ) {
    const t = await this.repo.threadOrThrow(tenant.tenantId, threadId);
    let top = t.version;
    if (q.checkpoint?.checkpoint_id !== undefined) {
      top = versionOf(t, q.checkpoint.checkpoint_id);
    }
    if (q.before !== undefined) {
      const before = typeof q.before === 'string' ? q.before : q.before.configurable.checkpoint_id;
      top = Math.min(top, versionOf(t, before) - 1);
    }
    const filter = Object.entries(q.metadata ?? {});
    const out: ReturnType<typeof threadStateView>[] = [];
    // A metadata filter reads on until the page is full (or the versions run out).
    for (let at = top; at > 0 && out.length < q.limit;) {
      const rows = await this.repo.checkpoints(t.id, at, q.limit);
      for (const row of rows) {
        const state = threadStateView(
          t.id,
          await this.states.load(t.id, row.version),
          row,
          row.version === t.version && t.last_status === 'waiting' ? t.waiting : null,
        );
        const meta = state.metadata as Record<string, unknown>;
        if (filter.every(([k, v]) => JSON.stringify(meta[k]) === JSON.stringify(v))) {
          out.push(state);
          if (out.length === q.limit) {
            break;
          }
        }
      }
      at = rows.length ? rows[rows.length - 1].version - 1 : 0;
    }
    return q.select ? out.map((s) => pick(s, q.select ?? [])) : out;
  }

  private async stateAt(t: ThreadRow, version: number) {
    if (version === 0) {
      return threadStateView(t.id, null, null, null);
    }
    const [row] = await this.repo.checkpoints(t.id, version, 1);
    return threadStateView(
      t.id,
      await this.states.load(t.id, version),
      row ?? null,
      version === t.version && t.last_status === 'waiting' ? t.waiting : null,
    );
  }

  private async view(t: ThreadRow) {
    return threadView(t, t.version > 0 ? await this.states.load(t.id, t.version) : null);
  }
}

/** A checkpoint id is a thread version, 1 to the thread's latest. */
function versionOf(t: ThreadRow, checkpointId: string): number {
  const version = /^\d{1,9}$/.test(checkpointId) ? Number(checkpointId) : NaN;
  if (!(version >= 1 && version <= t.version)) {
    throw ApiException.notFound(
      `checkpoint "${checkpointId}" (the thread's checkpoints are its versions 1..${t.version})`,
    );
  }
  return version;
}
