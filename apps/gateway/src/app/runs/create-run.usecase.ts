import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  type AgentConfig,
  type Breakpoints,
  type ClientRequestOptions,
  DEFAULT_AGENT_ID,
  type OriginFile,
  type RunFork,
  type RunStartMessage,
  isUuid,
  objectLocationOf,
} from '@switchyard/contracts';
import { RunEventWriter } from '@switchyard/events';
import { FileStore, type RunInput } from '@switchyard/persistence';
import { NodeDirectory } from '@switchyard/platform';
import { SpanKind, inSpan, trace, traceparentOf, tracingEnabled } from '@switchyard/telemetry';
import { GatewayConfig } from '../gateway.config';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { resolveBreakpoints } from './breakpoints';
import { type CreateRunBody, DEFAULT_RUN_PRIORITY } from './run.dto';
import { RunsRepository } from './runs.repository';
import { RunsStream } from './runs.stream';
import { type CreatedRun, createdRunView } from './runs.views';

/** The agent configuration a run pins (a branch keeps the one of the run it continues). */
export interface PinnedAgent {
  versionId: string | null;
  config: AgentConfig;
}

class DuplicateRequest extends Error {}

/**
 * `POST /v1/runs` (and every adapter that starts a run): checks the files and the agent, makes the
 * run within the tenant's caps, and hands it to the orchestrator.
 */
@Injectable()
export class CreateRunUseCase {
  private readonly logger = new Logger('RunsService');

  constructor(
    @Inject(RunsRepository) private readonly repo: RunsRepository,
    @Inject(RunsStream) private readonly stream: RunsStream,
    @Inject(RunEventWriter) private readonly events: RunEventWriter,
    @Inject(GatewayConfig) private readonly config: GatewayConfig,
    @Inject(FileStore) private readonly files: FileStore,
    @Inject(NodeDirectory) private readonly directory: NodeDirectory,
  ) {}

  /**
   * Creates the run (and its thread when new) in one transaction, then hands it to the
   * orchestrator. `created: false` means the tenant's `request_id` was seen before: the earlier
   * run is answered and nothing new is made (the unique index decides, not a prior read).
   */
  async execute(
    tenantId: string,
    body: CreateRunBody,
    client: ClientRequestOptions = {},
    branch?: { fork: RunFork; pinned?: PinnedAgent },
  ): Promise<{ created: boolean; run: CreatedRun }> {
    if (!tracingEnabled()) {
      return this.createRun(tenantId, body, client, branch, null);
    }
    // The run's trace begins here: every step, task, model and tool call of the run is in it.
    // The run keeps the trace (runs.trace_parent), so whoever starts it later starts it in it.
    return inSpan(
      'run.create',
      { tenant_id: tenantId, agent_id: body.agent_id },
      (span) =>
        this.createRun(tenantId, body, client, branch, span.isRecording() ? traceparentOf(span) : null),
      { kind: SpanKind.PRODUCER },
    );
  }

  /**
   * Breakpoints checked (400 naming a node the agent lacks) for a run of the agent's latest
   * version: what a cron's firings will run.
   */
  async checkBreakpoints(tenantId: string, agentId: string, breakpoints: Breakpoints): Promise<void> {
    await this.breakpointsFor(tenantId, (await this.agentConfig(tenantId, agentId)).config, breakpoints);
  }

  /**
   * A run's files must be where the deployment can read them: an uploaded file (`file_id`) is one
   * of the tenant's, an object store mapping names a provider in SWITCHYARD_OBJECT_STORES and a
   * `<bucket>/<key>` path — refused now (400 naming the file), not when the preprocess step finds
   * it cannot read the file.
   */
  private async assertFilesReachable(tenantId: string, files: readonly OriginFile[]): Promise<void> {
    const uploads = files.flatMap((f) => (f.file_id ? [f.file_id] : []));
    const known = uploads.length ? await this.files.existing(tenantId, uploads) : new Set<string>();
    files.forEach((file, i) => {
      if (file.file_id && (file.local_path !== undefined || file.mapping)) {
        throw ApiException.invalidField(
          `input.files.${i}`,
          'a file is one of: file_id (an upload), local_path, or mapping — not several',
        );
      }
      if (file.file_id && !known.has(file.file_id)) {
        throw ApiException.invalidField(
          `input.files.${i}.file_id`,
          `no file ${file.file_id} of this tenant: upload it with POST /v1/files first`,
        );
      }
      const mapping = file.mapping;
      if (!mapping || mapping.provider === 'local') {
        return;
      }
      if (!this.config.objectStores.includes(mapping.provider)) {
        throw ApiException.invalidField(
          `input.files.${i}.mapping.provider`,
          `object store "${mapping.provider}" is not configured on this deployment (SWITCHYARD_OBJECT_STORES: ${this.config.objectStores.join(', ') || 'none'})`,
        );
      }
      const where = objectLocationOf(mapping.path);
      if ('problem' in where) {
        throw ApiException.invalidField(`input.files.${i}.mapping.path`, where.problem);
      }
    });
  }

  private async createRun(
    tenantId: string,
    body: CreateRunBody,
    client: ClientRequestOptions,
    branch: { fork: RunFork; pinned?: PinnedAgent } | undefined,
    traceParent: string | null,
  ): Promise<{ created: boolean; run: CreatedRun }> {
    await this.assertFilesReachable(tenantId, body.input.files ?? []);
    const agent = branch?.pinned ?? (await this.agentConfig(tenantId, body.agent_id, body.agent_version));
    const breakpoints =
      body.breakpoints && (await this.breakpointsFor(tenantId, agent.config, body.breakpoints));
    const runId = randomUUID();
    let held = false;
    // A run on a new thread without a request id is one statement, atomic on its own: it goes
    // without BEGIN and COMMIT, two round trips fewer on every such start's path. A thread to lock,
    // or a request id whose duplicate must roll back the thread made for it, takes a transaction.
    const atomically = <T>(work: (m: EntityManager) => Promise<T>): Promise<T> =>
      body.thread_id || body.request_id ? this.repo.transaction(work) : this.repo.alone(work);
    const result = await atomically(async (m) => {
      let threadId = body.thread_id;
      if (threadId) {
        if (!(await this.repo.lockThread(m, tenantId, threadId))) {
          throw ApiException.notFound('thread');
        }
      } else {
        threadId = randomUUID();
      }
      // The run (and its new thread) in one statement that also reads the tenant's load and the
      // thread's other active runs as they were before it; it inserts nothing at the tenant's cap
      // of active runs (its own when the admin set one, else SWITCHYARD_MAX_ACTIVE_RUNS). The cap
      // is checked without serialising a tenant's creates: under concurrency it may be passed by
      // the number of requests in flight, which keeps creates fast.
      const made = await this.repo.insertRun(
        m,
        {
          id: runId,
          tenantId,
          threadId,
          agentId: body.agent_id,
          requestId: body.request_id ?? null,
          input: {
            ...body.input,
            ...(body.input.inputs ? { inputs_json: JSON.stringify(body.input.inputs) } : {}),
            ...(body.history?.length ? { history: body.history } : {}),
            ...(client.client_tools?.length ? { client_tools: client.client_tools } : {}),
            ...(client.response_format ? { response_format: client.response_format } : {}),
            ...(branch ? { fork: branch.fork } : {}),
            ...(breakpoints && (breakpoints.before || breakpoints.after) ? { breakpoints } : {}),
          } satisfies RunInput,
          metadata: body.metadata,
          maxSteps: agent.config.max_steps,
          agentVersionId: agent.versionId,
          agentConfig: agent.config,
          traceParent,
          priority: body.priority ?? DEFAULT_RUN_PRIORITY,
          afterSeconds: body.after_seconds || null,
          nodeTimeouts: agent.config.node_timeouts_ms ?? null,
        },
        { newThread: !body.thread_id, defaultCap: this.config.maxActiveRuns },
      );
      const { active, ahead, cap, runningCap } = made.load;
      if (!made.row) {
        const limit = cap ?? this.config.maxActiveRuns;
        // Seen before (under the cap the insert met the request id; at it, it was never tried):
        // roll back — a thread made for this request must not stay behind — and answer the
        // earlier run, whatever the tenant's load is now.
        if (
          active < limit ||
          (body.request_id && (await this.repo.requestSeen(m, tenantId, body.request_id)))
        ) {
          throw new DuplicateRequest();
        }
        throw new ApiException(
          ApiErrorCode.RateLimited,
          `the tenant has ${active} active runs (limit ${limit}); retry when some have ended`,
        );
      }
      // At its running cap (counting the queued runs ahead), the tenant's new run waits queued:
      // the orchestrator starts it when one of the tenant's runs ends, so no start message is
      // sent for it now — a burst does not put hundreds of them ahead of other tenants' starts.
      held = ahead >= (runningCap ?? this.config.tenantMaxRunning);
      let interrupted: string[] = [];
      if (body.thread_id) {
        const busy = made.busy;
        if (busy.length > 0 && body.multitask === 'reject') {
          // Rolls the transaction back: the new run is not kept.
          throw new ApiException(
            ApiErrorCode.ThreadBusy,
            `thread ${threadId} has an active run (${busy[0]})`,
          );
        }
        if (busy.length > 0 && body.multitask === 'interrupt') {
          // Flagged after the commit: updating those rows under this thread lock deadlocked
          // with the orchestrator stepping them (it locks runs, then threads). The new run
          // waits for them to end meanwhile, as an enqueued one does.
          interrupted = busy;
        }
        // enqueue: the orchestrator starts the run once the thread's earlier runs have ended.
      }
      return { created: true as const, row: made.row, interrupted };
    }).catch((err: unknown) => {
      if (err instanceof DuplicateRequest) {
        return { created: false as const };
      }
      throw err;
    });

    if (!result.created) {
      // The idempotent answer repeats the first response, status included.
      return { created: false, run: createdRunView(await this.repo.byRequestId(tenantId, body.request_id)) };
    }
    const row = result.row;
    if (result.interrupted.length) {
      await this.repo.flagCancel(result.interrupted);
    }
    for (const id of result.interrupted) {
      await this.stream.cancel(id);
    }
    await this.events.append(row.id, 'status', { status: 'queued' });
    if (held && !result.interrupted.length && !branch) {
      return { created: true, run: createdRunView(row) };
    }
    const start: RunStartMessage = {
      run_id: row.id,
      thread_id: row.thread_id,
      tenant_id: tenantId,
      agent_id: body.agent_id,
    };
    trace.getActiveSpan()?.setAttributes({ run_id: row.id, thread_id: row.thread_id });
    try {
      await this.stream.start(start);
    } catch (err) {
      this.logger.error({ run_id: row.id, err, msg: 'could not hand the run to the orchestrator' });
      await this.repo.failQueued(row.id, {
        code: 'unavailable',
        message: 'the run could not be queued (NATS unavailable)',
      });
      await this.events
        .appendMany(row.id, [
          { type: 'status', payload: { status: 'failed' } },
          { type: 'done', payload: { status: 'failed' } },
        ])
        .catch(() => undefined);
      throw new ApiException(ApiErrorCode.Unavailable, 'the run could not be queued; try again');
    }
    return { created: true, run: createdRunView(row) };
  }

  private breakpointsFor(tenantId: string, config: AgentConfig, breakpoints: Breakpoints) {
    return resolveBreakpoints(config, breakpoints, async (node) => {
      const reg = await this.directory.lookup(node);
      return reg !== undefined && (!reg.tenant_id || reg.tenant_id === tenantId);
    });
  }

  /**
   * The configuration a run pins: the built-in agent, or the tenant's agent at its latest
   * published version, at `draft`, or at a given version id.
   */
  private async agentConfig(tenantId: string, agentId: string, agentVersion?: string): Promise<PinnedAgent> {
    if (agentId === DEFAULT_AGENT_ID) {
      if (agentVersion) {
        throw ApiException.notFound(`version "${agentVersion}" of the built-in agent`);
      }
      return { versionId: null, config: { name: DEFAULT_AGENT_ID, max_steps: this.config.defaultMaxSteps } };
    }
    const agent = isUuid(agentId) ? await this.repo.agentWithDraft(tenantId, agentId) : undefined;
    if (!agent) {
      throw ApiException.notFound(`agent "${agentId}"`);
    }
    if (agentVersion === 'draft') {
      return { versionId: null, config: agent.draft };
    }
    if (agentVersion !== undefined && !isUuid(agentVersion)) {
      throw ApiException.notFound(`version "${agentVersion}" of agent "${agentId}"`);
    }
    const version = await this.repo.agentVersion(agentId, agentVersion);
    if (!version) {
      throw ApiException.notFound(`version "${agentVersion}" of agent "${agentId}"`);
    }
    return { versionId: version.id, config: version.config };
  }
}
