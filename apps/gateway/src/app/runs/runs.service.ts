import { Inject, Injectable } from '@nestjs/common';
import type {
  Action,
  Breakpoints,
  CancelledRunView,
  ClientRequestOptions,
  ResumedRunView,
  RunFork,
  Usage,
} from '@switchyard/contracts';
import { PgStateSource, type RunWaiting } from '@switchyard/persistence';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { CreateRunUseCase, type PinnedAgent } from './create-run.usecase';
import { ResumeRunUseCase } from './resume-run.usecase';
import type { CreateRunBody, ListRunsQuery } from './run.dto';
import { type ClientCallWaiter, type RunRecord, RunsRepository, type UsageByModel } from './runs.repository';
import { RunsStream } from './runs.stream';
import { type CreatedRun, cancelledRunView, meteredUsageOf } from './runs.views';

/**
 * Runs as the gateway's controllers and adapters use them: creating and resuming are use cases of
 * their own (create-run.usecase.ts, resume-run.usecase.ts), the SQL is in runs.repository.ts, the
 * JetStream messages in runs.stream.ts, the API shapes in runs.views.ts.
 */
@Injectable()
export class RunsService {
  constructor(
    @Inject(RunsRepository) private readonly repo: RunsRepository,
    @Inject(RunsStream) private readonly stream: RunsStream,
    @Inject(CreateRunUseCase) private readonly creating: CreateRunUseCase,
    @Inject(ResumeRunUseCase) private readonly resuming: ResumeRunUseCase,
    @Inject(PgStateSource) private readonly states: PgStateSource,
  ) {}

  /** See CreateRunUseCase.execute. */
  create(
    tenantId: string,
    body: CreateRunBody,
    client: ClientRequestOptions = {},
    branch?: { fork: RunFork; pinned?: PinnedAgent },
  ): Promise<{ created: boolean; run: CreatedRun }> {
    return this.creating.execute(tenantId, body, client, branch);
  }

  /** See CreateRunUseCase.checkBreakpoints. */
  checkBreakpoints(tenantId: string, agentId: string, breakpoints: Breakpoints): Promise<void> {
    return this.creating.checkBreakpoints(tenantId, agentId, breakpoints);
  }

  /**
   * `POST /v1/runs/:id/cancel`: flags the run in Postgres (a run not started yet is then never
   * started) and tells the orchestrator, which ends it and tells the workers to abort.
   */
  async cancel(tenantId: string, runId: string): Promise<{ created: boolean; body: CancelledRunView }> {
    if (!(await this.repo.flagCancelOfTenant(tenantId, runId))) {
      const current = await this.get(tenantId, runId);
      if (current.status === 'cancelled') {
        return { created: false, body: cancelledRunView(runId, true) };
      }
      throw new ApiException(ApiErrorCode.RunFinished, `run ${runId} already ${current.status}`);
    }
    await this.stream.cancel(runId);
    return { created: true, body: cancelledRunView(runId, false) };
  }

  /** See ResumeRunUseCase.resume. */
  resume(tenantId: string, runId: string, input: unknown): Promise<ResumedRunView> {
    return this.resuming.resume(tenantId, runId, input);
  }

  /** See ResumeRunUseCase.answerClientCalls. */
  answerClientCalls(
    runId: string,
    waiting: RunWaiting,
    outputs: readonly { tool_call_id: string; output: string }[],
  ): Promise<void> {
    return this.resuming.answerClientCalls(runId, waiting, outputs);
  }

  /** The tenant's runs waiting for the client's result of call `callId` (at most `limit`). */
  waitingForClientCall(
    tenantId: string,
    callId: string,
    threadId: string | undefined,
    limit: number,
  ): Promise<ClientCallWaiter[]> {
    return this.repo.waitingForClientCall(tenantId, callId, threadId, limit);
  }

  /** What a run waits for (null when it does not). */
  waitingOf(runId: string): Promise<RunWaiting | null> {
    return this.repo.waitingOf(runId);
  }

  /** The run's metered model usage so far (every model call of it, `model_usage`). */
  async meteredUsage(runId: string): Promise<Usage> {
    return meteredUsageOf(await this.usageByModel(runId));
  }

  /** The tenant's runs, newest first, a page at a time (keyset on created_at, id). */
  async list(tenantId: string, q: ListRunsQuery): Promise<{ runs: RunRecord[]; next_cursor: string | null }> {
    const [micros, id] = q.cursor ? q.cursor.split('_') : [null, null];
    const rows = await this.repo.page(tenantId, q, { micros, id }, q.limit + 1);
    const page = rows.slice(0, q.limit);
    const last = page.at(-1);
    return {
      runs: page,
      next_cursor: rows.length > q.limit && last ? `${last.at_us}_${last.id}` : null,
    };
  }

  async get(tenantId: string, runId: string): Promise<RunRecord> {
    const run = await this.repo.get(tenantId, runId);
    if (!run) {
      throw ApiException.notFound('run');
    }
    return run;
  }

  /** The run's metered model calls per model (model_usage, by its run index); [] before any call. */
  usageByModel(runId: string): Promise<UsageByModel[]> {
    return this.repo.usageByModel(runId);
  }

  async actions(tenantId: string, runId: string): Promise<Action[]> {
    await this.get(tenantId, runId);
    return this.states.actionsOfRun(runId);
  }
}
