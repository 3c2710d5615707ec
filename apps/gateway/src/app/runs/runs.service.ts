import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import Ajv from 'ajv';
import { DataSource, type EntityManager } from 'typeorm';
import {
  ASK_USER,
  CLIENT_TOOL,
  type ClientRequestOptions,
  ClientToolOutputsSchema,
  type Action,
  type AgentConfig,
  type Breakpoints,
  DEFAULT_AGENT_ID,
  type DeltaMessage,
  type OriginFile,
  type RunCancelMessage,
  type RunFork,
  type RunStartMessage,
  SUBJECTS,
  type RunStatus,
  type Usage,
  deltaSubject,
  isUuid,
  objectLocationOf,
  type RunErrorCode,
} from '@switchyard/contracts';
import { RunEventWriter } from '@switchyard/events';
import { JetStreamConnection } from '@switchyard/jetstream';
import { FileStore, PgStateSource, type RunInput, type RunWaiting } from '@switchyard/persistence';
import {
  SpanKind,
  inSpan,
  messageTrace,
  sampledParent,
  trace,
  traceparentOf,
  tracingEnabled,
  withTrace,
} from '@switchyard/telemetry';
import { NodeDirectory } from '@switchyard/platform';
import { GatewayConfig } from '../gateway.config';
import { latestVersionSql } from '../agents/agents.repository';
import { resolveBreakpoints } from './breakpoints';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { type CreateRunBody, DEFAULT_RUN_PRIORITY, type ListRunsQuery, type RunPriority } from './run.dto';

export interface RunRecord {
  id: string;
  tenant_id: string;
  thread_id: string;
  agent_id: string;
  /** The agent version the run pinned (null: the built-in agent, or a draft). */
  agent_version_id: string | null;
  turn: number | null;
  status: RunStatus;
  /** Dispatch priority within the tenant (runs.priority). */
  priority: RunPriority;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  steps: number;
  usage: unknown;
  output: unknown;
  error: unknown;
  metadata: unknown;
}

export interface UsageByModel {
  model_id: string | null;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cost: number;
}

/** The agent configuration a run pins (a branch keeps the one of the run it continues). */
export interface PinnedAgent {
  versionId: string | null;
  config: AgentConfig;
}

export interface CreatedRun {
  run_id: string;
  thread_id: string;
  status: RunStatus;
  created_at: string;
}

const ACTIVE: RunStatus[] = ['queued', 'running', 'waiting'];

class DuplicateRequest extends Error {}

@Injectable()
export class RunsService {
  private readonly logger = new Logger(RunsService.name);
  private readonly schemas = new Ajv({ allErrors: true, strict: false });

  constructor(
    @Inject(DataSource) private readonly ds: DataSource,
    @Inject(JetStreamConnection) private readonly nats: JetStreamConnection,
    @Inject(RunEventWriter) private readonly events: RunEventWriter,
    @Inject(PgStateSource) private readonly states: PgStateSource,
    @Inject(GatewayConfig) private readonly config: GatewayConfig,
    @Inject(FileStore) private readonly files: FileStore,
    @Inject(NodeDirectory) private readonly directory: NodeDirectory,
  ) {}

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

  /**
   * Creates the run (and its thread when new) in one transaction, then hands it to the
   * orchestrator. `created: false` means the tenant's `request_id` was seen before: the earlier
   * run is answered and nothing new is made (the unique index decides, not a prior read).
   */
  async create(
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
    const result = await this.ds
      .transaction(async (m) => {
        // The cap is checked without serialising a tenant's creates: under concurrency it may be
        // passed by the number of requests in flight, which keeps creates fast.
        const [{ active, ahead, cap, runningCap }] = (await m.query(
          `SELECT count(*)::int AS active,
                  count(*) FILTER (WHERE status IN ('queued', 'running'))::int AS ahead,
                  (SELECT max_active_runs FROM tenants WHERE id = $1) AS cap,
                  (SELECT max_running_runs FROM tenants WHERE id = $1) AS "runningCap"
           FROM runs WHERE tenant_id = $1 AND status IN ('queued', 'running', 'waiting')`,
          [tenantId],
        )) as { active: number; ahead: number; cap: number | null; runningCap: number | null }[];
        // At its running cap (counting the queued runs ahead), the tenant's new run waits queued:
        // the orchestrator starts it when one of the tenant's runs ends, so no start message is
        // sent for it now — a burst does not put hundreds of them ahead of other tenants' starts.
        held = ahead >= (runningCap ?? this.config.tenantMaxRunning);
        // The tenant's own cap when the admin set one, else SWITCHYARD_MAX_ACTIVE_RUNS.
        const limit = cap ?? this.config.maxActiveRuns;
        if (active >= limit && !(await this.known(m, tenantId, body.request_id))) {
          throw new ApiException(
            ApiErrorCode.RateLimited,
            `the tenant has ${active} active runs (limit ${limit}); retry when some have ended`,
          );
        }
        let threadId = body.thread_id;
        if (threadId) {
          const [thread] = (await m.query(
            'SELECT id FROM threads WHERE id = $1 AND tenant_id = $2 FOR UPDATE',
            [threadId, tenantId],
          )) as { id: string }[];
          if (!thread) {
            throw ApiException.notFound('thread');
          }
        } else {
          threadId = randomUUID();
          await m.query('INSERT INTO threads (id, tenant_id, agent_id) VALUES ($1, $2, $3)', [
            threadId,
            tenantId,
            body.agent_id,
          ]);
        }
        const inserted = (await m.query(
          `INSERT INTO runs (id, tenant_id, thread_id, agent_id, status, request_id, input, metadata, max_steps,
                           agent_version_id, agent_config, trace_parent, priority, not_before, node_timeouts)
         VALUES ($1, $2, $3, $4, 'queued', $5, $6, $7, $8, $9, $10, $11, $12,
                 now() + $13::float8 * interval '1 second', $14)
         ON CONFLICT (tenant_id, request_id) WHERE request_id IS NOT NULL DO NOTHING
         RETURNING id, thread_id, status, created_at`,
          [
            runId,
            tenantId,
            threadId,
            body.agent_id,
            body.request_id ?? null,
            JSON.stringify({
              ...body.input,
              ...(body.input.inputs ? { inputs_json: JSON.stringify(body.input.inputs) } : {}),
              ...(body.history?.length ? { history: body.history } : {}),
              ...(client.client_tools?.length ? { client_tools: client.client_tools } : {}),
              ...(client.response_format ? { response_format: client.response_format } : {}),
              ...(branch ? { fork: branch.fork } : {}),
              ...(breakpoints && (breakpoints.before || breakpoints.after) ? { breakpoints } : {}),
            } satisfies RunInput),
            JSON.stringify(body.metadata),
            agent.config.max_steps,
            agent.versionId,
            JSON.stringify(agent.config),
            traceParent,
            body.priority ?? DEFAULT_RUN_PRIORITY,
            body.after_seconds || null,
            agent.config.node_timeouts_ms ? JSON.stringify(agent.config.node_timeouts_ms) : null,
          ],
        )) as { id: string; thread_id: string; status: RunStatus; created_at: Date }[];
        if (inserted.length === 0) {
          // Seen before: roll back (a thread made for this request must not stay behind).
          throw new DuplicateRequest();
        }
        let interrupted: string[] = [];
        if (body.thread_id) {
          const busy = (await m.query(
            `SELECT id FROM runs WHERE thread_id = $1 AND id <> $2 AND status = ANY($3) ORDER BY created_at`,
            [threadId, runId, ACTIVE],
          )) as { id: string }[];
          if (busy.length > 0 && body.multitask === 'reject') {
            // Rolls the transaction back: the new run is not kept.
            throw new ApiException(
              ApiErrorCode.ThreadBusy,
              `thread ${threadId} has an active run (${busy[0].id})`,
            );
          }
          if (busy.length > 0 && body.multitask === 'interrupt') {
            // Flagged after the commit: updating those rows under this thread lock deadlocked
            // with the orchestrator stepping them (it locks runs, then threads). The new run
            // waits for them to end meanwhile, as an enqueued one does.
            interrupted = busy.map((r) => r.id);
          }
          // enqueue: the orchestrator starts the run once the thread's earlier runs have ended.
        }
        return { created: true as const, row: inserted[0], interrupted };
      })
      .catch((err: unknown) => {
        if (err instanceof DuplicateRequest) {
          return { created: false as const };
        }
        throw err;
      });

    if (!result.created) {
      const [existing] = (await this.ds.query(
        'SELECT id, thread_id, created_at FROM runs WHERE tenant_id = $1 AND request_id = $2',
        [tenantId, body.request_id],
      )) as { id: string; thread_id: string; created_at: Date }[];
      // The idempotent answer repeats the first response, status included.
      return {
        created: false,
        run: {
          run_id: existing.id,
          thread_id: existing.thread_id,
          status: 'queued',
          created_at: existing.created_at.toISOString(),
        },
      };
    }
    const row = result.row;
    if (result.interrupted.length) {
      await this.ds.query(
        `UPDATE runs SET cancel_requested = true WHERE id = ANY($1::uuid[]) AND status IN ('queued', 'running', 'waiting')`,
        [result.interrupted],
      );
    }
    for (const id of result.interrupted) {
      await this.requestCancel(id);
    }
    await this.events.append(row.id, 'status', { status: 'queued' });
    if (held && !result.interrupted.length && !branch) {
      return {
        created: true,
        run: {
          run_id: row.id,
          thread_id: row.thread_id,
          status: 'queued',
          created_at: new Date(row.created_at).toISOString(),
        },
      };
    }
    const start: RunStartMessage = {
      run_id: row.id,
      thread_id: row.thread_id,
      tenant_id: tenantId,
      agent_id: body.agent_id,
    };
    trace.getActiveSpan()?.setAttributes({ run_id: row.id, thread_id: row.thread_id });
    try {
      await this.nats.publish(SUBJECTS.runStart, start, { msgId: `start:${row.id}` });
    } catch (err) {
      this.logger.error({ run_id: row.id, err, msg: 'could not hand the run to the orchestrator' });
      await this.ds.query(
        `UPDATE runs SET status = 'failed', finished_at = now(), error = $2 WHERE id = $1 AND status = 'queued'`,
        [
          row.id,
          JSON.stringify({
            code: 'unavailable' satisfies RunErrorCode,
            message: 'the run could not be queued (NATS unavailable)',
          }),
        ],
      );
      await this.events
        .appendMany(row.id, [
          { type: 'status', payload: { status: 'failed' } },
          { type: 'done', payload: { status: 'failed' } },
        ])
        .catch(() => undefined);
      throw new ApiException(ApiErrorCode.Unavailable, 'the run could not be queued; try again');
    }
    return {
      created: true,
      run: {
        run_id: row.id,
        thread_id: row.thread_id,
        status: 'queued',
        created_at: new Date(row.created_at).toISOString(),
      },
    };
  }

  /**
   * The configuration a run pins: the built-in agent, or the tenant's agent at its latest
   * published version, at `draft`, or at a given version id.
   */
  /**
   * Breakpoints checked (400 naming a node the agent lacks) for a run of the agent's latest
   * version: what a cron's firings will run.
   */
  async checkBreakpoints(tenantId: string, agentId: string, breakpoints: Breakpoints): Promise<void> {
    await this.breakpointsFor(tenantId, (await this.agentConfig(tenantId, agentId)).config, breakpoints);
  }

  private breakpointsFor(tenantId: string, config: AgentConfig, breakpoints: Breakpoints) {
    return resolveBreakpoints(config, breakpoints, async (node) => {
      const reg = await this.directory.lookup(node);
      return reg !== undefined && (!reg.tenant_id || reg.tenant_id === tenantId);
    });
  }

  private async agentConfig(tenantId: string, agentId: string, agentVersion?: string): Promise<PinnedAgent> {
    if (agentId === DEFAULT_AGENT_ID) {
      if (agentVersion) {
        throw ApiException.notFound(`version "${agentVersion}" of the built-in agent`);
      }
      return { versionId: null, config: { name: DEFAULT_AGENT_ID, max_steps: this.config.defaultMaxSteps } };
    }
    const [agent] = isUuid(agentId)
      ? ((await this.ds.query(
          'SELECT draft FROM agents WHERE id = $1 AND tenant_id = $2 AND deleted_at IS NULL',
          [agentId, tenantId],
        )) as { draft: AgentConfig }[])
      : [];
    if (!agent) {
      throw ApiException.notFound(`agent "${agentId}"`);
    }
    if (agentVersion === 'draft') {
      return { versionId: null, config: agent.draft };
    }
    if (agentVersion !== undefined && !isUuid(agentVersion)) {
      throw ApiException.notFound(`version "${agentVersion}" of agent "${agentId}"`);
    }
    const [version] = (await this.ds.query(
      agentVersion
        ? 'SELECT id, config FROM agent_versions WHERE agent_id = $1 AND id = $2'
        : `SELECT v.id, v.config FROM agents a JOIN agent_versions v ON v.agent_id = a.id
           WHERE a.id = $1 AND v.version = ${latestVersionSql('a')}`,
      agentVersion ? [agentId, agentVersion] : [agentId],
    )) as { id: string; config: AgentConfig }[];
    if (!version) {
      throw ApiException.notFound(`version "${agentVersion}" of agent "${agentId}"`);
    }
    return { versionId: version.id, config: version.config };
  }

  /**
   * `POST /v1/runs/:id/cancel`: flags the run in Postgres (a run not started yet is then never
   * started) and tells the orchestrator, which ends it and tells the workers to abort.
   */
  async cancel(
    tenantId: string,
    runId: string,
  ): Promise<{ created: boolean; body: { run_id: string; status: string } }> {
    // TypeORM answers an UPDATE with [rows, affected].
    const [updated] = (await this.ds.query(
      `UPDATE runs SET cancel_requested = true
       WHERE id = $1 AND tenant_id = $2 AND status IN ('queued', 'running', 'waiting')
       RETURNING id`,
      [runId, tenantId],
    )) as [{ id: string }[], number];
    const run = updated[0];
    if (!run) {
      const current = await this.get(tenantId, runId);
      if (current.status === 'cancelled') {
        return { created: false, body: { run_id: runId, status: 'cancelled' } };
      }
      throw new ApiException(ApiErrorCode.RunFinished, `run ${runId} already ${current.status}`);
    }
    await this.requestCancel(runId);
    return { created: true, body: { run_id: runId, status: 'cancelling' } };
  }

  private async requestCancel(runId: string): Promise<void> {
    const message: RunCancelMessage = { run_id: runId };
    await this.nats.publish(SUBJECTS.runCancel, message, { msgId: `cancel:${runId}` }).catch((err: Error) => {
      // The flag is in Postgres: the orchestrator honours it when the run next starts or steps.
      this.logger.error({ run_id: runId, err, msg: 'cancel could not be published' });
      throw new ApiException(
        ApiErrorCode.Unavailable,
        'the cancel was recorded but could not be delivered; retry',
      );
    });
  }

  private async known(m: EntityManager, tenantId: string, requestId?: string): Promise<boolean> {
    if (!requestId) {
      return false;
    }
    const rows = (await m.query('SELECT 1 FROM runs WHERE tenant_id = $1 AND request_id = $2', [
      tenantId,
      requestId,
    ])) as unknown[];
    return rows.length > 0;
  }

  /**
   * Answers a waiting run: the input must match the question's input schema (400 otherwise, the
   * run keeps waiting); it becomes the human node's action, delivered like any node's delta.
   */
  async resume(
    tenantId: string,
    runId: string,
    input: unknown,
  ): Promise<{ run_id: string; status: 'resuming' }> {
    const [run] = (await this.ds.query('SELECT status, waiting FROM runs WHERE id = $1 AND tenant_id = $2', [
      runId,
      tenantId,
    ])) as { status: RunStatus; waiting: RunWaiting | null }[];
    if (!run) {
      throw ApiException.notFound('run');
    }
    const waiting = run.waiting;
    if (run.status !== 'waiting' || !waiting) {
      throw new ApiException(
        ApiErrorCode.RunNotWaiting,
        `run ${runId} is ${run.status}, not waiting for input`,
      );
    }
    if (waiting.node === CLIENT_TOOL.name && waiting.client_calls?.length) {
      const outputs = ClientToolOutputsSchema.safeParse(input);
      if (!outputs.success) {
        throw new ApiException(
          ApiErrorCode.InvalidRequest,
          'the run waits for the results of client functions: {tool_outputs: [{tool_call_id, output}]}',
          outputs.error.issues.map((i) => ({ field: ['input', ...i.path].join('.'), message: i.message })),
        );
      }
      await this.answerClientCalls(runId, waiting, outputs.data.tool_outputs);
      return { run_id: runId, status: 'resuming' };
    }
    const validate = this.schemas.compile(waiting.input_schema);
    if (!validate(input)) {
      throw new ApiException(
        ApiErrorCode.InvalidRequest,
        "the input does not match the question's input schema",
        (validate.errors ?? []).map((e) => ({
          field: `input${e.instancePath.replace(/\//g, '.')}`,
          message: e.message ?? 'invalid',
        })),
      );
    }
    const [task] = (await this.ds.query(
      `SELECT version, trace_parent FROM run_tasks WHERE id = $1 AND status = 'pending'`,
      [waiting.task_id],
    )) as { version: number; trace_parent: string | null }[];
    if (!task) {
      throw new ApiException(ApiErrorCode.RunNotWaiting, `run ${runId} was already resumed`);
    }
    const now = new Date().toISOString();
    const message: DeltaMessage = {
      task_id: waiting.task_id,
      run_id: runId,
      node: waiting.node,
      base_version: task.version,
      delta: {
        action: {
          node: waiting.node,
          preparation: `Asked the user: ${waiting.question}`,
          summary: 'The user answered.',
          result: input,
          usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
          next: waiting.resume_at ? [waiting.resume_at] : [...ASK_USER.next],
          started_at: waiting.since,
          finished_at: now,
          attempt: 1,
        },
      },
    };
    // The task id de-duplicates concurrent resumes: one answer is applied. The answer joins the
    // run's trace (the one its question was asked in).
    const send = () =>
      this.nats.publish(
        deltaSubject('gateway'),
        { ...message, ...withTrace(messageTrace()) },
        { msgId: waiting.task_id },
      );
    const parent = sampledParent(task.trace_parent ?? undefined);
    await (parent
      ? inSpan('run.resume', { run_id: runId, node: waiting.node, task_id: waiting.task_id }, send, {
          parent,
          kind: SpanKind.PRODUCER,
        })
      : send());
    return { run_id: runId, status: 'resuming' };
  }

  /**
   * Answers every client function call a waiting run waits for (each `client_tool` task gets its
   * output as the action's result); 400 naming a call left unanswered or an id the run did not ask.
   */
  async answerClientCalls(
    runId: string,
    waiting: RunWaiting,
    outputs: readonly { tool_call_id: string; output: string }[],
  ): Promise<void> {
    const calls = waiting.client_calls ?? [];
    const byId = new Map(outputs.map((o) => [o.tool_call_id, o.output]));
    const unknown = outputs.filter((o) => !calls.some((c) => c.id === o.tool_call_id));
    const missing = calls.filter((c) => !byId.has(c.id));
    if (unknown.length || missing.length) {
      throw new ApiException(
        ApiErrorCode.InvalidRequest,
        [
          missing.length ? `no result for the tool calls ${missing.map((c) => c.id).join(', ')}` : '',
          unknown.length ? `the run did not ask for ${unknown.map((o) => o.tool_call_id).join(', ')}` : '',
        ]
          .filter(Boolean)
          .join('; '),
        [...missing.map((c) => c.id), ...unknown.map((o) => o.tool_call_id)].map((id) => ({
          field: 'tool_call_id',
          message: id,
        })),
      );
    }
    const tasks = (await this.ds.query(
      `SELECT id, version, trace_parent FROM run_tasks WHERE id = ANY($1::uuid[]) AND status = 'pending'`,
      [calls.map((c) => c.task_id)],
    )) as { id: string; version: number; trace_parent: string | null }[];
    if (tasks.length < calls.length) {
      throw new ApiException(ApiErrorCode.RunNotWaiting, `run ${runId} already has these results`);
    }
    const now = new Date().toISOString();
    for (const call of calls) {
      const task = tasks.find((t) => t.id === call.task_id);
      const message: DeltaMessage = {
        task_id: call.task_id,
        run_id: runId,
        node: CLIENT_TOOL.name,
        base_version: task?.version ?? 0,
        // The result joins the run's trace under the step that asked for it.
        ...withTrace(task?.trace_parent),
        delta: {
          action: {
            node: CLIENT_TOOL.name,
            preparation: `The client was asked to run ${call.name}(${JSON.stringify(call.arguments)}).`,
            summary: `The client returned the result of ${call.name}.`,
            result: byId.get(call.id) ?? '',
            usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
            next: [...CLIENT_TOOL.next],
            started_at: waiting.since,
            finished_at: now,
            attempt: 1,
          },
        },
      };
      // The task id de-duplicates a repeated answer: one result is applied.
      await this.nats.publish(deltaSubject('gateway'), message, { msgId: call.task_id });
    }
  }

  /** The run's metered model usage so far (every model call of it, `model_usage`). */
  /** The tenant's runs waiting for the client's result of call `callId` (at most `limit`). */
  async waitingForClientCall(
    tenantId: string,
    callId: string,
    threadId: string | undefined,
    limit: number,
  ): Promise<{ id: string; thread_id: string; agent_id: string; waiting: RunWaiting }[]> {
    return (await this.ds.query(
      `SELECT id, thread_id, agent_id, waiting FROM runs
       WHERE tenant_id = $1 AND status = 'waiting' AND waiting->'client_calls' @> $2::jsonb
         AND ($3::uuid IS NULL OR thread_id = $3::uuid)
       LIMIT $4`,
      [tenantId, JSON.stringify([{ id: callId }]), threadId ?? null, limit],
    )) as { id: string; thread_id: string; agent_id: string; waiting: RunWaiting }[];
  }

  /** What a run waits for (null when it does not). */
  async waitingOf(runId: string): Promise<RunWaiting | null> {
    const [row] = (await this.ds.query('SELECT waiting FROM runs WHERE id = $1', [runId])) as {
      waiting: RunWaiting | null;
    }[];
    return row?.waiting ?? null;
  }

  async meteredUsage(runId: string): Promise<Usage> {
    const sum = (await this.usageByModel(runId)).reduce(
      (u, m) => ({
        prompt_tokens: u.prompt_tokens + m.prompt_tokens,
        completion_tokens: u.completion_tokens + m.completion_tokens,
        total_tokens: u.total_tokens + m.total_tokens,
      }),
      { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    );
    return sum;
  }

  /** The tenant's runs, newest first, a page at a time (keyset on created_at, id). */
  async list(tenantId: string, q: ListRunsQuery): Promise<{ runs: RunRecord[]; next_cursor: string | null }> {
    const [micros, id] = q.cursor ? q.cursor.split('_') : [null, null];
    const rows = (await this.ds.query(
      `SELECT id, tenant_id, thread_id, agent_id, agent_version_id, turn, status, priority, created_at, started_at, finished_at, steps, usage,
              output, error, metadata, (extract(epoch FROM created_at) * 1000000)::bigint::text AS at_us
       FROM runs
       WHERE tenant_id = $1
         AND ($2::text[] IS NULL OR status = ANY($2::text[]))
         AND ($3::text IS NULL OR agent_id = $3)
         AND ($4::uuid IS NULL OR thread_id = $4)
         AND ($5::timestamptz IS NULL OR created_at >= $5)
         AND ($6::timestamptz IS NULL OR created_at < $6)
         AND ($7::bigint IS NULL OR (created_at, id) < (to_timestamp($7::bigint / 1000000.0), $8::uuid))
       ORDER BY created_at DESC, id DESC
       LIMIT $9`,
      [
        tenantId,
        q.status ?? null,
        q.agent_id ?? null,
        q.thread_id ?? null,
        q.since ?? null,
        q.until ?? null,
        micros,
        id,
        q.limit + 1,
      ],
    )) as (RunRecord & { at_us: string })[];
    const page = rows.slice(0, q.limit);
    const last = page.at(-1);
    return {
      runs: page,
      next_cursor: rows.length > q.limit && last ? `${last.at_us}_${last.id}` : null,
    };
  }

  async get(tenantId: string, runId: string): Promise<RunRecord> {
    const [run] = (await this.ds.query(
      `SELECT id, tenant_id, thread_id, agent_id, agent_version_id, turn, status, priority, created_at, started_at, finished_at, steps, usage,
              output, error, metadata
       FROM runs WHERE id = $1 AND tenant_id = $2`,
      [runId, tenantId],
    )) as RunRecord[];
    if (!run) {
      throw ApiException.notFound('run');
    }
    return run;
  }

  /** The run's metered model calls per model (model_usage, by its run index); [] before any call. */
  async usageByModel(runId: string): Promise<UsageByModel[]> {
    const rows = (await this.ds.query(
      `SELECT model_id, sum(prompt_tokens)::bigint AS prompt_tokens, sum(completion_tokens)::bigint AS completion_tokens,
              sum(total_tokens)::bigint AS total_tokens, sum(cost) AS cost
       FROM model_usage WHERE run_id = $1 GROUP BY model_id ORDER BY min(created_at)`,
      [runId],
    )) as Record<keyof UsageByModel, string | null>[];
    return rows.map((r) => ({
      model_id: r.model_id,
      prompt_tokens: Number(r.prompt_tokens),
      completion_tokens: Number(r.completion_tokens),
      total_tokens: Number(r.total_tokens),
      cost: Number(r.cost),
    }));
  }

  async actions(tenantId: string, runId: string): Promise<Action[]> {
    await this.get(tenantId, runId);
    return this.states.actionsOfRun(runId);
  }
}

export function runView(run: RunRecord) {
  const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);
  return {
    run_id: run.id,
    thread_id: run.thread_id,
    agent_id: run.agent_id,
    agent_version_id: run.agent_version_id ?? null,
    turn: run.turn,
    status: run.status,
    priority: run.priority,
    created_at: iso(run.created_at),
    started_at: iso(run.started_at),
    finished_at: iso(run.finished_at),
    steps: run.steps,
    usage: run.usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    output: run.output ?? null,
    error: run.error ?? null,
    metadata: run.metadata ?? {},
  };
}
