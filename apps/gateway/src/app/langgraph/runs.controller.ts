import {
  Body,
  Controller,
  Delete,
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
import { type RunStatus, isTerminal } from '@switchyard/contracts';
import { RunEventReader } from '@switchyard/events';
import { ApiKeyGuard, Tenant, type TenantContext } from '../auth/api-key.guard';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { ZodPipe } from '../http/zod-body.pipe';
import { RunEventStreams } from '../runs/run-event-streams.service';
import { RunsService } from '../runs/runs.service';
import { ThreadDeletion } from '../threads/thread-deletion.service';
import { LangGraphRuns, type StartedRun } from './langgraph-runs.service';
import { LangGraphEncoding, type LgStreamOptions } from './langgraph-stream';
import { LangGraphRepository } from './langgraph.repository';
import {
  type CancelMany,
  CancelManySchema,
  CancelQuerySchema,
  RunBatchSchema,
  type RunCreate,
  RunCreateSchema,
  type StreamMode,
  StreamModeSchema,
} from './langgraph.schemas';
import { runView } from './langgraph.views';

const ALL_MODES: StreamMode[] = ['values', 'updates', 'messages-tuple'];
const CANCEL_WAIT_MS = 60_000;
const KEEPALIVE_MS = 1000;
const ROLLBACK_REFUSED =
  'action: "rollback" is not supported (runs and their history are kept); use "interrupt"';

/**
 * LangGraph runs of a thread: create, stream, wait, get, join and cancel (LANGGRAPH_API.md §2–3).
 * A stream's parts are computed from the run's event log (langgraph-stream.ts), so every stream
 * can be joined again from any part id.
 */
// Every route twice: a thread's runs, and stateless runs (`/runs…`, no `thread_id`: a thread is
// made for the run — LangGraphRuns.startStateless — and its runs are found by id alone).
@Controller(['threads/:thread_id/runs', 'runs'])
@UseGuards(ApiKeyGuard, RateLimitGuard)
export class LangGraphRunsController {
  constructor(
    @Inject(LangGraphRuns) private readonly lgRuns: LangGraphRuns,
    @Inject(LangGraphRepository) private readonly repo: LangGraphRepository,
    @Inject(RunsService) private readonly runs: RunsService,
    @Inject(RunEventReader) private readonly reader: RunEventReader,
    @Inject(RunEventStreams) private readonly streams: RunEventStreams,
    @Inject(ThreadDeletion) private readonly deletion: ThreadDeletion,
  ) {}

  @Get()
  async list(@Tenant() tenant: TenantContext, @Param('thread_id') threadId: string | undefined) {
    if (threadId === undefined) {
      throw ApiException.notFound(
        "a list of stateless runs (list a thread's: GET /threads/{thread_id}/runs)",
      );
    }
    const t = await this.repo.threadOrThrow(tenant.tenantId, threadId);
    return (await this.repo.runsOfThread(t.id)).map((r) => runView(r, r.agent_id, null));
  }

  @Post()
  async create(
    @Tenant() tenant: TenantContext,
    @Param('thread_id') threadId: string | undefined,
    @Body(new ZodPipe(RunCreateSchema)) body: RunCreate,
    @Res() res: Response,
  ): Promise<void> {
    const started = await this.startFor(tenant.tenantId, threadId, body);
    this.locate(res, started);
    const run = await this.repo.runOrThrow(tenant.tenantId, started.threadId, started.runId);
    res.status(200).json(runView(run, started.assistantId, body.multitask_strategy));
  }

  /**
   * Cancel many (`runs.cancelMany`): the runs named (in the path's or the body's thread), or every
   * run of the tenant in a status; those already ended are left alone. 204.
   */
  @Post('cancel')
  @HttpCode(204)
  async cancelMany(
    @Tenant() tenant: TenantContext,
    @Param('thread_id') threadId: string | undefined,
    @Query(new ZodPipe(CancelQuerySchema)) q: { action: string },
    @Body(new ZodPipe(CancelManySchema)) body: CancelMany,
  ): Promise<void> {
    if (q.action === 'rollback') {
      throw new ApiException(ApiErrorCode.InvalidRequest, ROLLBACK_REFUSED);
    }
    const thread = threadId ?? body.thread_id ?? null;
    if (thread !== null) {
      await this.repo.threadOrThrow(tenant.tenantId, thread);
    }
    const ids = await this.repo.activeRunIds(tenant.tenantId, { ...body, threadId: thread });
    for (const id of ids) {
      // A run that ended meanwhile is not an error here: it needs no cancel.
      await this.runs.cancel(tenant.tenantId, id).catch((err: unknown) => {
        if (!(err instanceof ApiException && err.code === ApiErrorCode.RunFinished)) {
          throw err;
        }
      });
    }
  }

  /** Stateless runs in one request: each on a thread of its own; the runs, in order. */
  @Post('batch')
  async batch(
    @Tenant() tenant: TenantContext,
    @Param('thread_id') threadId: string | undefined,
    @Body(new ZodPipe(RunBatchSchema)) body: RunCreate[],
    @Res() res: Response,
  ): Promise<void> {
    if (threadId !== undefined) {
      throw ApiException.notFound('batch runs of a thread (POST /runs/batch makes stateless runs)');
    }
    const views = [];
    for (const payload of body) {
      const started = await this.lgRuns.startStateless(tenant.tenantId, payload);
      const run = await this.repo.runOrThrow(tenant.tenantId, started.threadId, started.runId);
      views.push(runView(run, started.assistantId, payload.multitask_strategy));
    }
    res.status(200).json(views);
  }

  @Post('stream')
  async stream(
    @Tenant() tenant: TenantContext,
    @Param('thread_id') threadId: string | undefined,
    @Body(new ZodPipe(RunCreateSchema)) body: RunCreate,
    @Res() res: Response,
  ): Promise<void> {
    const started = await this.begin(tenant.tenantId, threadId, body, res);
    await this.streamRun(res, started, {
      modes: body.stream_mode,
      afterId: -1,
      liveAfter: started.liveAfter,
      metadata: started.liveAfter === null ? 'numbered' : 'unnumbered',
      waitFrom: started.liveAfter === null ? null : { seq: started.liveAfter, inclusive: false },
    });
  }

  @Post('wait')
  async wait(
    @Tenant() tenant: TenantContext,
    @Param('thread_id') threadId: string | undefined,
    @Body(new ZodPipe(RunCreateSchema)) body: RunCreate,
    @Res() res: Response,
  ): Promise<void> {
    const started = await this.begin(tenant.tenantId, threadId, body, res);
    await this.answerWhenEnded(res, started);
  }

  /** Join: waits until the run ends (or waits for an answer), then gives the thread's values as `wait` does. */
  @Get(':run_id/join')
  async joinBlocking(
    @Tenant() tenant: TenantContext,
    @Param('thread_id') threadId: string | undefined,
    @Param('run_id') runId: string,
    @Res() res: Response,
  ): Promise<void> {
    const run = await this.repo.runOrThrow(tenant.tenantId, threadId, runId);
    await this.answerWhenEnded(res, {
      runId: run.id,
      threadId: run.thread_id,
      assistantId: run.agent_id,
      liveAfter: null,
      answered: null,
    });
  }

  /** Deletes an ended run (its checkpoints stay in the thread's history); 409 while it is under way. */
  @Delete(':run_id')
  @HttpCode(204)
  async remove(
    @Tenant() tenant: TenantContext,
    @Param('thread_id') threadId: string | undefined,
    @Param('run_id') runId: string,
  ): Promise<void> {
    const run = await this.repo.runOrThrow(tenant.tenantId, threadId, runId);
    await this.deletion.deleteRun(tenant.tenantId, run.thread_id, run.id);
  }

  /** The thread's values once the run ended or waits (`__error__` in a 200 when it failed). */
  private async answerWhenEnded(res: Response, started: StartedRun): Promise<void> {
    // Headers at once (the SDK holds a concurrency slot until they come), then a newline a
    // second until the answer: JSON.parse skips leading whitespace.
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' });
    const keepAlive = setInterval(() => res.write('\n'), KEEPALIVE_MS);
    try {
      await this.lgRuns.follow(started);
      res.end(JSON.stringify(await this.lgRuns.waitResult(started.runId, started.threadId)));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      res.end(JSON.stringify({ __error__: { error: 'unavailable', message } }));
    } finally {
      clearInterval(keepAlive);
    }
  }

  @Get(':run_id')
  async get(
    @Tenant() tenant: TenantContext,
    @Param('thread_id') threadId: string | undefined,
    @Param('run_id') runId: string,
  ) {
    const run = await this.repo.runOrThrow(tenant.tenantId, threadId, runId);
    return runView(run, run.agent_id, null);
  }

  /** Join: the run's parts after `Last-Event-ID` ("-1": all), or only those from now on without it. */
  @Get(':run_id/stream')
  async join(
    @Tenant() tenant: TenantContext,
    @Param('thread_id') threadId: string | undefined,
    @Param('run_id') runId: string,
    @Query('stream_mode') rawModes: string | string[] | undefined,
    @Query('cancel_on_disconnect') cancelOnDisconnect: string | undefined,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    const run = await this.repo.runOrThrow(tenant.tenantId, threadId, runId);
    if (lastEventId !== undefined && !/^-?\d+$/.test(lastEventId)) {
      throw new ApiException(
        ApiErrorCode.InvalidRequest,
        'Last-Event-ID must be a part id (an integer, or -1)',
      );
    }
    // No modes named: those the run was created with (every mode for a run made elsewhere).
    const modes =
      rawModes !== undefined
        ? parseModes(rawModes)
        : ((run.stream_modes as StreamMode[] | null) ?? ALL_MODES);
    if (cancelOnDisconnect === '1' || cancelOnDisconnect === 'true') {
      this.cancelOnDisconnect(res, tenant.tenantId, run.id);
    }
    const lastSeq = await this.reader.lastSeq(run.id);
    const started: StartedRun = {
      runId: run.id,
      threadId: run.thread_id,
      assistantId: run.agent_id,
      liveAfter: null,
      answered: null,
    };
    await this.streamRun(res, started, {
      modes,
      afterId: lastEventId === undefined ? -1 : Number(lastEventId),
      liveAfter: lastEventId === undefined ? lastSeq : null,
      metadata: lastEventId === undefined ? 'none' : 'numbered',
      // A run waiting now ends the join at its question; a running one at its next question.
      waitFrom: lastSeq ? { seq: lastSeq, inclusive: run.status === 'waiting' } : null,
    });
  }

  /** 202 (or 204 once the run ended, with `wait=1`), no body; `action=rollback` is refused. */
  @Post(':run_id/cancel')
  async cancel(
    @Tenant() tenant: TenantContext,
    @Param('thread_id') threadId: string | undefined,
    @Param('run_id') runId: string,
    @Query(new ZodPipe(CancelQuerySchema)) q: { wait: string; action: string },
    @Res() res: Response,
  ): Promise<void> {
    if (q.action === 'rollback') {
      throw new ApiException(ApiErrorCode.InvalidRequest, ROLLBACK_REFUSED);
    }
    const run = await this.repo.runOrThrow(tenant.tenantId, threadId, runId);
    await this.runs.cancel(tenant.tenantId, run.id);
    if (q.wait === '1' || q.wait === 'true') {
      const deadline = Date.now() + CANCEL_WAIT_MS;
      let status: RunStatus | undefined = run.status;
      while (status && !isTerminal(status) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        status = (await this.repo.runStatus(run.id))?.status;
      }
      res.status(204).end();
      return;
    }
    res.status(202).end();
  }

  /** Starts (or resumes) the run, says where it is, and cancels it if asked when the client goes. */
  private async begin(
    tenantId: string,
    threadId: string | undefined,
    body: RunCreate,
    res: Response,
  ): Promise<StartedRun> {
    const started = await this.startFor(tenantId, threadId, body);
    this.locate(res, started);
    if (body.on_disconnect === 'cancel') {
      this.cancelOnDisconnect(res, tenantId, started.runId);
    }
    return started;
  }

  /** A run of the thread, or without one (`/runs…`) a stateless run. */
  private startFor(tenantId: string, threadId: string | undefined, body: RunCreate): Promise<StartedRun> {
    return threadId === undefined
      ? this.lgRuns.startStateless(tenantId, body)
      : this.lgRuns.start(tenantId, threadId, body);
  }

  /** `Content-Location` (the SDK's onRunCreated) and `Location` (its reconnect after a drop). */
  private locate(res: Response, started: StartedRun): void {
    const path = `/threads/${started.threadId}/runs/${started.runId}`;
    res.setHeader('Content-Location', path);
    res.setHeader('Location', `${path}/stream`);
  }

  private cancelOnDisconnect(res: Response, tenantId: string, runId: string): void {
    res.on('close', () => {
      if (!res.writableFinished) {
        void this.runs.cancel(tenantId, runId).catch(() => undefined);
      }
    });
  }

  private async streamRun(
    res: Response,
    started: StartedRun,
    o: Omit<LgStreamOptions, 'runId' | 'threadId' | 'final'>,
  ): Promise<void> {
    const encoding = new LangGraphEncoding({
      ...o,
      runId: started.runId,
      threadId: started.threadId,
      final: (status, errorSent) =>
        this.lgRuns.finalParts(started.runId, started.threadId, status, errorSent),
    });
    await this.streams.stream(res, started.runId, null, encoding);
  }
}

/** `stream_mode` of a join: 2.0.0 sends a JSON array, 1.15 repeats the key. */
function parseModes(raw: string | string[]): StreamMode[] {
  let modes: unknown = raw;
  if (typeof raw === 'string' && raw.startsWith('[')) {
    try {
      modes = JSON.parse(raw);
    } catch {
      throw new ApiException(ApiErrorCode.InvalidRequest, 'stream_mode: not a JSON array');
    }
  }
  const parsed = StreamModeSchema.safeParse(modes);
  if (!parsed.success) {
    throw new ApiException(ApiErrorCode.InvalidRequest, parsed.error.issues.map((i) => i.message).join('; '));
  }
  return parsed.data;
}
