import { randomUUID } from 'node:crypto';
import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Patch,
  Post,
  UseGuards,
} from '@nestjs/common';
import { PgStateSource } from '@switchyard/persistence';
import { ApiKeyGuard, Tenant, type TenantContext } from '../auth/api-key.guard';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { ZodPipe } from '../http/zod-body.pipe';
import { ThreadDeletion } from '../threads/thread-deletion.service';
import { ThreadsRepository } from '../threads/threads.repository';
import { LangGraphRuns, checkpointVersion } from './langgraph-runs.service';
import { LangGraphRepository, type ThreadFilter, type ThreadRow } from './langgraph.repository';
import {
  type History,
  HistorySchema,
  type ThreadCount,
  ThreadCountSchema,
  type ThreadPrune,
  ThreadPruneSchema,
  type ThreadCreate,
  ThreadCreateSchema,
  type ThreadSearch,
  ThreadSearchSchema,
  type ThreadUpdate,
  ThreadUpdateSchema,
  type UpdateState,
  UpdateStateSchema,
} from './langgraph.schemas';
import { checkpointOf, containsJson, threadStateView, threadView, pick } from './langgraph.views';

// Threads read per query while a `values` filter scans for matches.
const VALUES_SCAN_PAGE = 200;
import { checkpointIdOf } from './run-create';

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
    @Inject(ThreadsRepository) private readonly threads: ThreadsRepository,
    @Inject(LangGraphRuns) private readonly runs: LangGraphRuns,
    @Inject(ThreadDeletion) private readonly deletion: ThreadDeletion,
  ) {}

  /**
   * The tenant's threads: metadata and values (contained, as LangGraph's jsonb `@>`), ids and
   * status filter; sorted, a page at a time. A `values` filter reads each candidate's state.
   */
  @Post('search')
  @HttpCode(200)
  async search(@Tenant() tenant: TenantContext, @Body(new ZodPipe(ThreadSearchSchema)) q: ThreadSearch) {
    const sort = { by: q.sort_by, order: q.sort_order };
    let views: ReturnType<typeof threadView>[];
    if (q.values === undefined) {
      const rows = await this.repo.searchThreads(tenant.tenantId, q, sort, q.limit, q.offset);
      views = await Promise.all(rows.map((t) => this.view(t)));
    } else {
      views = [];
      let skip = q.offset;
      for (let at = 0; views.length < q.limit; at += VALUES_SCAN_PAGE) {
        const rows = await this.repo.searchThreads(tenant.tenantId, q, sort, VALUES_SCAN_PAGE, at);
        for (const t of rows) {
          const view = await this.view(t);
          if (containsJson(view.values, q.values) && skip-- <= 0 && views.length < q.limit) {
            views.push(view);
          }
        }
        if (rows.length < VALUES_SCAN_PAGE) {
          break;
        }
      }
    }
    return q.select ? views.map((v) => pick(v, q.select ?? [])) : views;
  }

  /** How many of the tenant's threads match (the filters of `search`). */
  @Post('count')
  @HttpCode(200)
  async count(@Tenant() tenant: TenantContext, @Body(new ZodPipe(ThreadCountSchema)) q: ThreadCount) {
    const filter: ThreadFilter = q;
    if (q.values === undefined) {
      return this.repo.countThreads(tenant.tenantId, filter);
    }
    let n = 0;
    const sort = { by: 'created_at', order: 'asc' } as const;
    for (let at = 0; ; at += VALUES_SCAN_PAGE) {
      const rows = await this.repo.searchThreads(tenant.tenantId, filter, sort, VALUES_SCAN_PAGE, at);
      for (const t of rows) {
        if (containsJson((await this.view(t)).values, q.values)) {
          n++;
        }
      }
      if (rows.length < VALUES_SCAN_PAGE) {
        return n;
      }
    }
  }

  /** Copy: a new thread with this one's metadata and whole history (ThreadsRepository.copy). */
  @Post(':thread_id/copy')
  @HttpCode(200)
  async copy(@Tenant() tenant: TenantContext, @Param('thread_id') threadId: string) {
    const t = await this.repo.threadOrThrow(tenant.tenantId, threadId);
    const id = randomUUID();
    await this.threads.copy(tenant.tenantId, t.id, id);
    return this.view(await this.repo.threadOrThrow(tenant.tenantId, id));
  }

  /**
   * Prune the threads named (all or none: a run under way in any of them is a 409 naming it; ids
   * that are not the tenant's are skipped): `delete` deletes them (as `DELETE /threads/{id}`),
   * `keep_latest` keeps each one's latest state only, its earlier checkpoints gone. `{pruned_count}`:
   * the threads deleted, or those that had history to fold.
   */
  @Post('prune')
  @HttpCode(200)
  async prune(@Tenant() tenant: TenantContext, @Body(new ZodPipe(ThreadPruneSchema)) body: ThreadPrune) {
    const own = await this.repo.searchThreads(
      tenant.tenantId,
      { ids: [...new Set(body.thread_ids)] },
      { by: 'thread_id', order: 'asc' },
      body.thread_ids.length,
      0,
    );
    const busy = own.find((t) => t.last_status && ['queued', 'running', 'waiting'].includes(t.last_status));
    if (busy) {
      throw new ApiException(
        ApiErrorCode.Conflict,
        `thread ${busy.id} has a run that is ${busy.last_status} (${busy.last_run_id}): cancel it first`,
      );
    }
    if (body.strategy === 'keep_latest') {
      let folded = 0;
      for (const t of own) {
        folded += (await this.threads.keepLatest(tenant.tenantId, t.id, this.states)) ? 1 : 0;
      }
      return { pruned_count: folded };
    }
    for (const t of own) {
      await this.deletion.delete(tenant.tenantId, t.id);
    }
    return { pruned_count: own.length };
  }

  /** Update: `metadata` merged into the thread's. */
  @Patch(':thread_id')
  async update(
    @Tenant() tenant: TenantContext,
    @Param('thread_id') threadId: string,
    @Body(new ZodPipe(ThreadUpdateSchema)) body: ThreadUpdate,
  ) {
    const t = await this.repo.threadOrThrow(tenant.tenantId, threadId);
    if (body.metadata) {
      await this.repo.mergeThreadMetadata(tenant.tenantId, t.id, body.metadata);
    }
    return this.view(await this.repo.threadOrThrow(tenant.tenantId, threadId));
  }

  /**
   * Deletes the thread with its runs, their events and checkpoints (as `DELETE /v1/threads/{id}`);
   * 409 while a run of it is under way or waiting: cancel it first.
   */
  @Delete(':thread_id')
  @HttpCode(204)
  async remove(@Tenant() tenant: TenantContext, @Param('thread_id') threadId: string): Promise<void> {
    await this.repo.threadOrThrow(tenant.tenantId, threadId);
    await this.deletion.delete(tenant.tenantId, threadId);
  }

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

  /**
   * `threads.patchState`: a checkpoint's metadata is what its step recorded (source, step, run,
   * writes), read from the thread's log; it is not edited. Refused, naming the route.
   */
  @Patch(':thread_id/state')
  refusePatchState(): never {
    throw new ApiException(
      ApiErrorCode.InvalidRequest,
      "PATCH /threads/{thread_id}/state is not supported: a checkpoint's metadata is what its step recorded; keep your own in the thread's metadata (PATCH /threads/{thread_id})",
    );
  }

  /**
   * `threads.joinStream` (every run of the thread, as they come): not served; a run's stream is
   * (`GET /threads/{thread_id}/runs/{run_id}/stream`). Refused, naming the route.
   */
  @Get(':thread_id/stream')
  refuseThreadStream(): never {
    throw new ApiException(
      ApiErrorCode.InvalidRequest,
      "GET /threads/{thread_id}/stream is not supported: join a run's stream (GET /threads/{thread_id}/runs/{run_id}/stream); GET /threads/{thread_id}/runs lists them",
    );
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
    return this.stateAt(t, checkpointVersion(t.version, checkpointId));
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
    return this.stateAt(t, checkpointVersion(t.version, id));
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
      top = checkpointVersion(t.version, q.checkpoint.checkpoint_id);
    }
    if (q.before !== undefined) {
      const before = typeof q.before === 'string' ? q.before : q.before.configurable.checkpoint_id;
      top = Math.min(top, checkpointVersion(t.version, before) - 1);
    }
    const filter = Object.entries(q.metadata ?? {});
    const out: ReturnType<typeof threadStateView>[] = [];
    // A metadata filter reads on until the page is full (or the versions run out).
    for (let at = top; at > 0 && out.length < q.limit;) {
      const rows = await this.threads.versions(t.id, at, q.limit);
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

  /**
   * Update state: a new checkpoint parented on the head (or `checkpoint`), with `values` written
   * (see editsOfValues); what runs next is what was pending at the checkpoint, or with `as_node`
   * that node's successors.
   */
  @Post(':thread_id/state')
  @HttpCode(200)
  async updateState(
    @Tenant() tenant: TenantContext,
    @Param('thread_id') threadId: string,
    @Body(new ZodPipe(UpdateStateSchema)) body: UpdateState,
  ) {
    const t = await this.repo.threadOrThrow(tenant.tenantId, threadId);
    const { version } = await this.runs.updateState(
      tenant.tenantId,
      t,
      checkpointIdOf(body),
      body.values,
      body.as_node,
    );
    return { checkpoint: checkpointOf(t.id, version), configurable: checkpointOf(t.id, version) };
  }

  private async stateAt(t: ThreadRow, version: number) {
    if (version === 0) {
      return threadStateView(t.id, null, null, null);
    }
    const [row] = await this.threads.versions(t.id, version, 1);
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
