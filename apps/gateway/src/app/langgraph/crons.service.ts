import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { isUuid } from '@switchyard/contracts';
import { PeriodicJob } from '@switchyard/platform';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { checkSchedule, nextFiring } from './cron-schedule';
import { type CronRow, CronsRepository } from './crons.repository';
import { LangGraphRuns } from './langgraph-runs.service';
import { LangGraphRepository } from './langgraph.repository';
import { type CronCreate, type CronUpdate, type RunCreate, RunCreateSchema } from './langgraph.schemas';
import { breakpointsOf, refuseUnsupported, turnInputOf } from './run-create';

const POLL_MS = 1000;
const DUE_PER_PASS = 20;

/** The RunCreate fields a cron keeps and posts at each firing. */
const PAYLOAD_KEYS = [
  'input',
  'metadata',
  'config',
  'context',
  'webhook',
  'multitask_strategy',
  'interrupt_before',
  'interrupt_after',
  'durability',
  'checkpoint_during',
] as const;

/**
 * Crons: creating one checks its schedule and run body as a run would be checked (every problem a
 * 400 at once), and the scheduler fires them: each pass, one gateway replica locks the due crons
 * (SKIP LOCKED) and makes each one's run with the request id `cron:<id>:<time>`, so a firing made
 * again (a crash before its next time was stored) finds the same run. After downtime a cron fires
 * once for all the times it missed, then keeps its schedule.
 */
@Injectable()
export class Crons extends PeriodicJob {
  constructor(
    @Inject(CronsRepository) private readonly crons: CronsRepository,
    @Inject(LangGraphRuns) private readonly runs: LangGraphRuns,
    @Inject(LangGraphRepository) private readonly lg: LangGraphRepository,
  ) {
    super();
  }

  async create(tenantId: string, threadId: string | null, body: CronCreate): Promise<CronRow> {
    const timezone = body.timezone ?? 'UTC';
    checkSchedule(body.schedule, timezone);
    const assistantId = await this.runs.agentIdOf(tenantId, body.assistant_id);
    if (threadId !== null) {
      if (!isUuid(threadId)) {
        throw ApiException.notFound(`thread "${threadId}"`);
      }
      const thread = await this.lg.thread(tenantId, threadId);
      if (!thread) {
        if (body.if_not_exists !== 'create') {
          throw ApiException.notFound(`thread "${threadId}" (send if_not_exists: "create" to create it)`);
        }
        await this.lg.createThread(tenantId, threadId, {}, assistantId);
      }
    }
    const payload: Record<string, unknown> = {};
    for (const key of PAYLOAD_KEYS) {
      if (body[key] !== undefined) {
        payload[key] = body[key];
      }
    }
    // A thread's firings queue behind a run still going rather than being refused.
    if (threadId !== null) {
      payload['multitask_strategy'] ??= 'enqueue';
    } else {
      payload['on_completion'] = body.on_run_completed ?? 'delete';
    }
    await this.runs.checkBreakpoints(
      tenantId,
      assistantId,
      this.runBodyOf(assistantId, payload, threadId === null),
    );
    const endTime = body.end_time ? new Date(body.end_time) : null;
    const row = {
      id: randomUUID(),
      tenant_id: tenantId,
      assistant_id: assistantId,
      thread_id: threadId,
      schedule: body.schedule,
      timezone,
      payload,
      metadata: body.metadata ?? {},
      end_time: endTime,
      enabled: body.enabled ?? true,
      next_run_at: nextFiring(body.schedule, timezone, new Date(), endTime),
    };
    await this.crons.save(row);
    return this.crons.getOrThrow(tenantId, row.id);
  }

  /**
   * A search's assistant (an id or a graph id) as crons store it: undefined when none is named,
   * null when the tenant has no such assistant (nothing matches).
   */
  async assistantOf(tenantId: string, named: string | undefined): Promise<string | undefined | null> {
    if (named === undefined) {
      return undefined;
    }
    return this.runs.agentIdOf(tenantId, named).catch((err: unknown) => {
      if (err instanceof ApiException && err.code === ApiErrorCode.NotFound) {
        return null;
      }
      throw err;
    });
  }

  async update(tenantId: string, id: string, patch: CronUpdate): Promise<CronRow> {
    const cron = await this.crons.getOrThrow(tenantId, id);
    const schedule = patch.schedule ?? cron.schedule;
    const timezone = patch.timezone ?? cron.timezone;
    checkSchedule(schedule, timezone);
    const payload = { ...cron.payload };
    for (const key of PAYLOAD_KEYS) {
      if (patch[key] !== undefined) {
        payload[key] = patch[key];
      }
    }
    if (cron.thread_id === null && patch.on_run_completed) {
      payload['on_completion'] = patch.on_run_completed;
    }
    await this.runs.checkBreakpoints(
      tenantId,
      cron.assistant_id,
      this.runBodyOf(cron.assistant_id, payload, cron.thread_id === null),
    );
    const endTime =
      patch.end_time === undefined ? cron.end_time : patch.end_time ? new Date(patch.end_time) : null;
    const next = {
      ...cron,
      schedule,
      timezone,
      payload,
      metadata: patch.metadata ?? cron.metadata,
      end_time: endTime,
      enabled: patch.enabled ?? cron.enabled,
      next_run_at: nextFiring(schedule, timezone, new Date(), endTime),
    };
    await this.crons.save(next);
    return this.crons.getOrThrow(tenantId, id);
  }

  protected intervalMs(): number {
    return POLL_MS;
  }

  protected async pass(): Promise<void> {
    await this.crons.fireDue(DUE_PER_PASS, (c) => this.fire(c));
  }

  /** One firing: its run (made once for this time), and the next time after now. */
  private async fire(c: CronRow): Promise<{ next: Date | null; runId: string | null; error: string | null }> {
    const at = new Date(c.next_run_at ?? Date.now());
    const requestId = `cron:${c.id}:${at.toISOString()}`;
    const next = nextFiring(c.schedule, c.timezone, new Date(Math.max(Date.now(), at.getTime())), c.end_time);
    try {
      const body = this.runBodyOf(c.assistant_id, c.payload, c.thread_id === null);
      const started =
        c.thread_id === null
          ? await this.runs.startStateless(c.tenant_id, body, requestId)
          : await this.runs.start(c.tenant_id, c.thread_id, body, requestId);
      return { next, runId: started.runId, error: null };
    } catch (err) {
      // The firing is skipped (the agent was deleted, the thread refused a run …); the cron goes on.
      const error = err instanceof Error ? err.message : String(err);
      this.logger.warn({ msg: 'cron firing failed', cron_id: c.id, at: at.toISOString(), error });
      return { next, runId: null, error };
    }
  }

  /** The run body a firing posts, checked as a run's request is (400 naming what is wrong). */
  private runBodyOf(assistantId: string, payload: Record<string, unknown>, stateless: boolean): RunCreate {
    const parsed = RunCreateSchema.safeParse({ ...payload, assistant_id: assistantId });
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw ApiException.invalidField(issue.path.join('.') || 'body', issue.message);
    }
    const body = parsed.data;
    refuseUnsupported({ ...body, on_completion: stateless ? undefined : body.on_completion });
    if (body.input === undefined || body.input === null) {
      throw ApiException.invalidField('input', 'a cron starts a new turn at each firing: input is required');
    }
    turnInputOf(body.input);
    if (stateless && breakpointsOf(body) && body.on_completion !== 'keep') {
      throw ApiException.invalidField(
        body.interrupt_before ? 'interrupt_before' : 'interrupt_after',
        'a stateless firing\'s thread is deleted when its run ends, with what a breakpoint left pending: send on_run_completed: "keep"',
      );
    }
    if (body.webhook !== undefined) {
      this.runs.checkWebhook(body.webhook);
    }
    return body;
  }
}
