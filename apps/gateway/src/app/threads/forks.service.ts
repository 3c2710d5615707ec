import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type RunFork, type StateEdit } from '@switchyard/contracts';
import { ForkPointError, PgStateSource, forkPoint } from '@switchyard/persistence';
import { DeltaRejectedException, forkDelta } from '@switchyard/state';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import type { CreateRunBody } from '../runs/run.dto';
import { RunsService } from '../runs/runs.service';
import type { CreatedRun } from '../runs/runs.views';
import { type RunAgentRecord, ThreadsRepository } from './threads.repository';

export interface ForkRequest {
  /** The version the branch starts from (a step boundary). */
  version: number;
  edits: StateEdit[];
  mode: RunFork['mode'];
  /** `turn` mode: the new turn's input and agent (default: the thread's agent, latest version). */
  input?: CreateRunBody['input'];
  agent_id?: string;
  agent_version?: string;
  request_id?: string;
  multitask: CreateRunBody['multitask'];
  metadata: Record<string, unknown>;
  /** How the caller's API names the edits in errors (default `edits`). */
  editsField?: string;
  /**
   * What runs after the branch's first version, from the agent of the run at the fork point
   * (default: what was pending there). LangGraph's `as_node` names a node whose successors run.
   */
  next?: (agent: RunAgentRecord) => string[];
  /** The run's breakpoints (as a request names them; checked against its agent). */
  breakpoints?: CreateRunBody['breakpoints'];
}

export interface ForkResponse {
  created: boolean;
  thread_id: string;
  from_version: number;
  /** What was pending at the fork point, dispatched again in `continue` mode. */
  pending: string[];
  run: CreatedRun;
}

const invalid = ApiException.invalidField;

/**
 * Forks (branches) a thread: a run whose first action takes the thread back to an earlier
 * version, with edits, and goes on from there — the steps before the fork point are reused, not
 * run again, and the versions after it stay in the log, readable. Checked here, so a bad request
 * is a 400 and writes nothing; the orchestrator writes the branch.
 */
@Injectable()
export class ForksService {
  constructor(
    @Inject(DataSource) private readonly ds: DataSource,
    @Inject(PgStateSource) private readonly states: PgStateSource,
    @Inject(RunsService) private readonly runs: RunsService,
    @Inject(ThreadsRepository) private readonly threads: ThreadsRepository,
  ) {}

  async fork(tenantId: string, threadId: string, req: ForkRequest): Promise<ForkResponse> {
    const thread = await this.threads.threadOrThrow(tenantId, threadId);
    if (!(req.version >= 1 && req.version <= thread.version)) {
      throw invalid(
        'version',
        thread.version === 0
          ? 'the thread has no versions yet'
          : `must be a version of the thread, 1..${thread.version}`,
      );
    }
    const point = await forkPoint(this.ds.manager, threadId, req.version).catch((err: unknown) => {
      if (err instanceof ForkPointError) {
        throw err.problem === 'inside_step'
          ? invalid('version', err.message)
          : new ApiException(ApiErrorCode.Conflict, err.message, [
              { field: 'version', message: err.message },
            ]);
      }
      throw err;
    });
    const at = await this.states.load(threadId, req.version);
    if (req.mode === 'turn' && point.next.length > 0) {
      throw invalid(
        'input',
        `version ${req.version} is inside turn ${at.turn} (${point.next.join(', ')} still to run): continue the turn without input, or fork at a version that ends a turn`,
      );
    }
    const next = req.next ? req.next(await this.threads.runAgent(point.run_id)) : point.next;
    try {
      // The edits checked against the state they will apply to (the rewind makes it that one).
      forkDelta({ head: at, at, runId: threadId, edits: req.edits, next });
    } catch (err) {
      if (err instanceof DeltaRejectedException) {
        throw invalid(req.editsField ?? 'edits', err.message);
      }
      throw err;
    }
    const fork: RunFork = {
      from_version: req.version,
      edits: req.edits,
      mode: req.mode,
      task_id: randomUUID(),
      next,
    };
    let created: Awaited<ReturnType<RunsService['create']>>;
    if (req.mode === 'turn') {
      if (!req.input) {
        throw invalid('input', 'required to start a new turn');
      }
      created = await this.runs.create(
        tenantId,
        {
          input: req.input,
          thread_id: threadId,
          agent_id: req.agent_id ?? thread.agent_id,
          ...(req.agent_version ? { agent_version: req.agent_version } : {}),
          ...(req.request_id ? { request_id: req.request_id } : {}),
          multitask: req.multitask,
          metadata: req.metadata,
          ...(req.breakpoints ? { breakpoints: req.breakpoints } : {}),
        },
        {},
        { fork },
      );
    } else {
      // The turn goes on as the run that was in it: same agent and configuration.
      const pinned = await this.threads.runAgent(point.run_id);
      created = await this.runs.create(
        tenantId,
        {
          input: { prompt: at.prompts[at.turn] ?? '' },
          thread_id: threadId,
          agent_id: pinned.agent_id,
          ...(req.request_id ? { request_id: req.request_id } : {}),
          multitask: req.multitask,
          metadata: req.metadata,
          ...(req.breakpoints ? { breakpoints: req.breakpoints } : {}),
        },
        {},
        { fork, pinned: { versionId: pinned.agent_version_id, config: pinned.agent_config } },
      );
    }
    return {
      created: created.created,
      thread_id: threadId,
      from_version: req.version,
      pending: next,
      run: created.run,
    };
  }
}
