import { createHash, randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import { forbiddenAddressReason, normalizeHost } from '@switchyard/net-guard';
import { Inject, Injectable } from '@nestjs/common';
import {
  type AgentConfig,
  type Breakpoints,
  DEFAULT_AGENT_ID,
  type RunStatus,
  isUuid,
} from '@switchyard/contracts';
import { RunEventHub, RunEventReader } from '@switchyard/events';
import { PgStateSource } from '@switchyard/persistence';
import { DataSource } from 'typeorm';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { followRun } from '../runs/follow-run';
import { RunsService } from '../runs/runs.service';
import { asNodeSuccessors } from './assistant-graph';
import type { LgPart } from './langgraph-stream';
import { LangGraphRepository, type ThreadRow } from './langgraph.repository';
import type { RunCreate } from './langgraph.schemas';
import { interruptOf, valuesOf } from './langgraph.views';
import {
  breakpointsOf,
  checkpointIdOf,
  refuseUnsupported,
  resumeOf,
  turnInputOf,
  withLangGraphFields,
} from './run-create';
import { editsOfValues } from './update-state';
import { ForksService } from '../threads/forks.service';
import { type RunAgentRecord, ThreadsRepository } from '../threads/threads.repository';
import { GatewayConfig } from '../gateway.config';
import { WebhooksRepository } from '../webhooks/webhooks.repository';

const WATCHDOG_MS = 2000;
// How long `POST /threads/{id}/state` waits for the orchestrator to write the update.
const UPDATE_WAIT_MS = 15_000;
// `runs.wait` has no client timeout; a run still going after this is answered with a 503 inside `__error__`.
const MAX_WAIT_MS = 30 * 60_000;

/** A run a LangGraph request started or resumed, and where its client's part of the log begins. */
export interface StartedRun {
  runId: string;
  threadId: string;
  assistantId: string;
  /** Events at or below this id came before the request (a resumed run's earlier part); null: none. */
  liveAfter: string | null;
  /** The human task this request answered (a resume): a wait on it is the wait that just ended. */
  answered: string | null;
}

/**
 * LangGraph runs over Switchyard's: a run with `input` is a new run of the agent named by
 * `assistant_id` (RunsService.create); a run with `command.resume` answers the question the
 * thread's waiting run asked (RunsService.resume), and continues that run.
 */
@Injectable()
export class LangGraphRuns {
  constructor(
    @Inject(RunsService) private readonly runs: RunsService,
    @Inject(LangGraphRepository) private readonly repo: LangGraphRepository,
    @Inject(RunEventReader) private readonly reader: RunEventReader,
    @Inject(RunEventHub) private readonly hub: RunEventHub,
    @Inject(PgStateSource) private readonly states: PgStateSource,
    @Inject(DataSource) private readonly ds: DataSource,
    @Inject(ForksService) private readonly forks: ForksService,
    @Inject(ThreadsRepository) private readonly threads: ThreadsRepository,
    @Inject(WebhooksRepository) private readonly webhooks: WebhooksRepository,
    @Inject(GatewayConfig) private readonly config: GatewayConfig,
  ) {}

  /** The agent id an assistant id (or graph id, i.e. agent name) stands for. */
  async agentIdOf(tenantId: string, assistantId: string): Promise<string> {
    if (assistantId === DEFAULT_AGENT_ID) {
      return DEFAULT_AGENT_ID;
    }
    return (await this.repo.agentOrThrow(tenantId, assistantId)).id;
  }

  /**
   * `requestId` (a cron's firing): the run is made at most once for it — the same id again gives
   * the run made the first time.
   */
  async start(tenantId: string, threadId: string, body: RunCreate, requestId?: string): Promise<StartedRun> {
    if (body.webhook !== undefined) {
      this.checkWebhook(body.webhook);
    }
    const started = await this.startRun(tenantId, threadId, body, requestId);
    // A join that names no modes replays these (LangGraph's server keeps them with the run).
    await this.repo.setStreamModes(started.runId, body.stream_mode);
    if (body.webhook !== undefined) {
      await this.webhooks.schedule(started.runId, tenantId, body.webhook);
    }
    return started;
  }

  /** The body's breakpoints checked against the agent's latest version (a cron's). */
  async checkBreakpoints(tenantId: string, agentId: string, body: RunCreate): Promise<void> {
    const breakpoints = breakpointsOf(body);
    if (breakpoints) {
      await withLangGraphFields(this.runs.checkBreakpoints(tenantId, agentId, breakpoints));
    }
  }

  /** A webhook to a private address literal is refused at once, unless its host is allowed. */
  checkWebhook(url: string): void {
    const host = normalizeHost(new URL(url).hostname);
    const reason =
      isIP(host) && !this.config.webhookAllowHosts.includes(host) ? forbiddenAddressReason(host) : null;
    if (reason) {
      throw ApiException.invalidField(
        'webhook',
        `refusing to send to ${host} (${reason}); an operator may allow it in SWITCHYARD_WEBHOOK_ALLOW_HOSTS`,
      );
    }
  }

  /**
   * A stateless run (`POST /runs…`): on a thread made for it, deleted by the orchestrator once
   * the run has ended (`on_completion: "delete"`, the default) or kept (`"keep"`).
   */
  async startStateless(tenantId: string, body: RunCreate, requestId?: string): Promise<StartedRun> {
    if (resumeOf(body.command) || checkpointIdOf(body) !== undefined) {
      throw new ApiException(
        ApiErrorCode.InvalidRequest,
        'a stateless run has no thread to resume or fork: use /threads/{thread_id}/runs',
      );
    }
    if (breakpointsOf(body) && body.on_completion !== 'keep') {
      throw ApiException.invalidField(
        body.interrupt_before ? 'interrupt_before' : 'interrupt_after',
        'a stateless run\'s thread is deleted when the run ends, with what a breakpoint left pending: send on_completion: "keep"',
      );
    }
    const agentId = await this.agentIdOf(tenantId, body.assistant_id);
    // A request made again (a cron's firing) finds the thread it made the first time.
    const threadId = requestId ? uuidOf(`${tenantId}:${requestId}`) : randomUUID();
    await this.repo.createThread(tenantId, threadId, {}, agentId, body.on_completion !== 'keep');
    try {
      return await this.start(tenantId, threadId, { ...body, on_completion: undefined }, requestId);
    } catch (err) {
      // Nothing ran: the thread made for it goes at once (the sweep only takes threads with runs).
      await this.threads.delete(tenantId, threadId).catch(() => undefined);
      throw err;
    }
  }

  private async startRun(
    tenantId: string,
    threadId: string,
    body: RunCreate,
    requestId?: string,
  ): Promise<StartedRun> {
    refuseUnsupported(body);
    const resume = resumeOf(body.command);
    if (resume && body.input !== undefined && body.input !== null) {
      throw new ApiException(ApiErrorCode.InvalidRequest, 'send either input or command.resume, not both');
    }
    const agentId = await this.agentIdOf(tenantId, body.assistant_id);
    let thread = await this.repo.thread(tenantId, threadId);
    if (!thread) {
      if (body.if_not_exists !== 'create') {
        throw ApiException.notFound(`thread "${threadId}" (send if_not_exists: "create" to create it)`);
      }
      if (!isUuid(threadId)) {
        throw new ApiException(ApiErrorCode.InvalidRequest, 'the thread id must be a UUID');
      }
      await this.repo.createThread(tenantId, threadId, {}, agentId);
      thread = await this.repo.threadOrThrow(tenantId, threadId);
    }
    const checkpointId = checkpointIdOf(body);
    if (
      body.after_seconds &&
      (resume || checkpointId !== undefined || body.input === undefined || body.input === null)
    ) {
      throw ApiException.invalidField('after_seconds', 'only a run with new input can be delayed');
    }
    const breakpoints = breakpointsOf(body);
    if (resume) {
      if (breakpoints) {
        throw ApiException.invalidField(
          body.interrupt_before ? 'interrupt_before' : 'interrupt_after',
          'a resume goes on with the waiting run, whose breakpoints hold: set them when creating a run',
        );
      }
      if (checkpointId !== undefined) {
        throw new ApiException(
          ApiErrorCode.InvalidRequest,
          'checkpoint_id: a resume answers the question the thread waits on now; it cannot start from a checkpoint',
        );
      }
      return this.resume(tenantId, thread, agentId, resume.value);
    }
    if (checkpointId !== undefined) {
      return withLangGraphFields(this.fork(tenantId, thread, agentId, checkpointId, body, breakpoints));
    }
    if (body.input === undefined || body.input === null) {
      if (thread.version === 0) {
        throw new ApiException(
          ApiErrorCode.InvalidRequest,
          'input is required: the thread has no state to continue (or send command.resume to answer the question it waits on)',
        );
      }
      // No input: go on from the thread's current checkpoint (what is pending there runs).
      return withLangGraphFields(
        this.fork(tenantId, thread, agentId, String(thread.version), body, breakpoints),
      );
    }
    const turn = turnInputOf(body.input);
    if (turn.history.length && (await this.repo.hasRuns(thread.id))) {
      throw new ApiException(
        ApiErrorCode.InvalidRequest,
        'input.messages: the thread already has its messages; send only the new human message',
      );
    }
    const { run } = await withLangGraphFields(
      this.runs.create(tenantId, {
        input: { prompt: turn.prompt, ...(turn.inputs ? { inputs: turn.inputs } : {}) },
        ...(turn.history.length ? { history: turn.history } : {}),
        thread_id: thread.id,
        agent_id: agentId,
        multitask: body.multitask_strategy === 'rollback' ? 'reject' : body.multitask_strategy,
        metadata: body.metadata ?? {},
        ...(body.after_seconds ? { after_seconds: body.after_seconds } : {}),
        ...(requestId ? { request_id: requestId } : {}),
        ...(breakpoints ? { breakpoints } : {}),
      }),
    );
    return { runId: run.run_id, threadId: thread.id, assistantId: agentId, liveAfter: null, answered: null };
  }

  /**
   * A run from a checkpoint forks the thread there: with `input: null` it goes on from that
   * state (what was pending there runs; nothing before it runs again), with input it is a new
   * turn from there (the checkpoint must end a turn).
   */
  private async fork(
    tenantId: string,
    thread: ThreadRow,
    agentId: string,
    checkpointId: string,
    body: RunCreate,
    breakpoints: Breakpoints | undefined,
  ): Promise<StartedRun> {
    const version = checkpointVersion(thread.version, checkpointId);
    const turn = body.input === undefined || body.input === null ? null : turnInputOf(body.input);
    if (turn?.history.length) {
      throw new ApiException(
        ApiErrorCode.InvalidRequest,
        'input.messages: a run from a checkpoint continues its thread; send only the new human message',
      );
    }
    const forked = await this.forks.fork(tenantId, thread.id, {
      version,
      edits: [],
      mode: turn ? 'turn' : 'continue',
      ...(turn ? { input: { prompt: turn.prompt, ...(turn.inputs ? { inputs: turn.inputs } : {}) } } : {}),
      agent_id: agentId,
      multitask: body.multitask_strategy === 'rollback' ? 'reject' : body.multitask_strategy,
      metadata: body.metadata ?? {},
      ...(breakpoints ? { breakpoints } : {}),
    });
    return {
      runId: forked.run.run_id,
      threadId: thread.id,
      assistantId: agentId,
      liveAfter: null,
      answered: null,
    };
  }

  /**
   * `POST /threads/{id}/state`: a new checkpoint parented on the head or the given checkpoint,
   * with `values` written — a branch that only records (its run ends at once). What runs next
   * from it is what was pending at the checkpoint, or with `as_node` that node's successors.
   * Answered once the orchestrator wrote it, with its checkpoint.
   */
  async updateState(
    tenantId: string,
    thread: ThreadRow,
    checkpointId: string | undefined,
    values: unknown,
    asNode?: string | null,
  ): Promise<{ version: number }> {
    const version =
      checkpointId === undefined ? thread.version : checkpointVersion(thread.version, checkpointId);
    if (version === 0) {
      throw new ApiException(ApiErrorCode.InvalidRequest, 'the thread has no state yet: start a run first');
    }
    const edits = editsOfValues(values, await this.states.load(thread.id, version));
    const forked = await this.forks.fork(tenantId, thread.id, {
      version,
      edits,
      mode: 'record',
      editsField: 'values',
      multitask: 'reject',
      metadata: {},
      ...(asNode ? { next: (agent: RunAgentRecord) => asNodeNext(agent.agent_config, asNode) } : {}),
    });
    const runId = forked.run.run_id;
    const deadline = Date.now() + UPDATE_WAIT_MS;
    for (;;) {
      const run = await this.repo.run(runId);
      if (run && ['succeeded', 'failed', 'cancelled'].includes(run.status)) {
        const written = await this.threads.forkVersion(runId);
        if (run.status !== 'succeeded' || written === null) {
          throw new ApiException(
            ApiErrorCode.InvalidRequest,
            `values: the update was not applied (${run.error?.message ?? run.status})`,
          );
        }
        return { version: written };
      }
      if (Date.now() > deadline) {
        throw new ApiException(
          ApiErrorCode.Unavailable,
          `the update (run ${runId}) was not written in time; retry`,
        );
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  private async resume(
    tenantId: string,
    thread: ThreadRow,
    agentId: string,
    value: unknown,
  ): Promise<StartedRun> {
    const waiting = await this.repo.waitingRun(thread.id);
    if (!waiting?.waiting) {
      throw new ApiException(
        ApiErrorCode.RunNotWaiting,
        `thread ${thread.id} has no interrupt to resume (no run waits for an answer)`,
      );
    }
    if (waiting.agent_id !== agentId) {
      throw new ApiException(
        ApiErrorCode.InvalidRequest,
        `assistant_id: the waiting run belongs to the assistant "${waiting.agent_id}"`,
      );
    }
    const liveAfter = (await this.reader.lastSeq(waiting.id)) ?? '0-0';
    await this.runs.resume(tenantId, waiting.id, value);
    return {
      runId: waiting.id,
      threadId: thread.id,
      assistantId: agentId,
      liveAfter,
      answered: waiting.waiting.task_id,
    };
  }

  /** Follows the run until it ends or waits for a new answer; resolves with that status. */
  follow(started: StartedRun): Promise<RunStatus> {
    return followRun({
      hub: this.hub,
      ds: this.ds,
      runId: started.runId,
      cursor: started.liveAfter ?? '0-0',
      answered: new Set(started.answered ? [started.answered] : []),
      watchdogMs: WATCHDOG_MS,
      maxWaitMs: MAX_WAIT_MS,
    });
  }

  /** The thread's values now (`{}` before any run started). */
  async values(threadId: string): Promise<Record<string, unknown>> {
    const version = await this.repo.threadVersion(threadId);
    return version > 0 ? valuesOf(await this.states.load(threadId, version)) : {};
  }

  /**
   * What `runs.wait` answers once the run stopped: the values (with `__interrupt__` when it waits
   * for an answer), or `__error__` when it failed.
   */
  async waitResult(runId: string, threadId: string): Promise<Record<string, unknown>> {
    const run = await this.repo.run(runId);
    if (run?.status === 'failed') {
      return {
        __error__: {
          error: run.error?.code ?? 'run_failed',
          message: run.error?.message ?? 'the run failed',
        },
      };
    }
    const values = await this.values(threadId);
    if (run?.status === 'waiting' && run.waiting && !run.waiting.client_calls?.length) {
      return { ...values, __interrupt__: [interruptOf(run.waiting)] };
    }
    return values;
  }

  /** The parts after a run's `done`: its final values, or the error its log did not carry. */
  async finalParts(
    runId: string,
    threadId: string,
    status: RunStatus,
    errorSent: boolean,
  ): Promise<LgPart[]> {
    if (status === 'succeeded') {
      return [{ event: 'values', data: await this.values(threadId) }];
    }
    if (status === 'failed' && !errorSent) {
      const run = await this.repo.run(runId);
      return [
        {
          event: 'error',
          data: { error: run?.error?.code ?? 'run_failed', message: run?.error?.message ?? 'the run failed' },
        },
      ];
    }
    return [];
  }
}

/** A checkpoint id is a thread version, 1 to the thread's latest (404 otherwise). */
export function checkpointVersion(latest: number, checkpointId: string): number {
  const version = /^\d{1,9}$/.test(checkpointId) ? Number(checkpointId) : NaN;
  if (!(version >= 1 && version <= latest)) {
    throw ApiException.notFound(
      `checkpoint "${checkpointId}" (the thread's checkpoints are its versions 1..${latest})`,
    );
  }
  return version;
}

/** A UUID (version 4 layout) derived from `text`: the same text, the same id. */
export function uuidOf(text: string): string {
  const b = createHash('sha256').update(text).digest();
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.subarray(0, 16).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** `as_node`'s successors, or a 400 naming it (see asNodeSuccessors). */
function asNodeNext(config: AgentConfig, node: string): string[] {
  try {
    return asNodeSuccessors(config, node);
  } catch (err) {
    throw ApiException.invalidField('as_node', (err as Error).message);
  }
}
