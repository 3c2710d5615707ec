import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { Histogram, register } from 'prom-client';
import { DataSource } from 'typeorm';
import {
  type DeltaMessage,
  type MeteredCall,
  type RuntimeState,
  SUBJECTS,
  type NodeAnswer,
  nodeDelta,
  type TaskMessage,
  TaskMessageSchema,
  ZERO_USAGE,
  deltaSubject,
  describeZodError,
  isUuid,
  type RunErrorCode,
  isRunErrorCode,
  type RunError,
} from '@switchyard/contracts';
import { RunEventWriter } from '@switchyard/events';
import {
  JetStreamConnection,
  type JetStreamContext,
  NonRetryableMessageError,
  isRetryable,
} from '@switchyard/jetstream';
import { TaskCalls, runWithLlmCallContext } from '@switchyard/models';
import { ServiceConfig } from '@switchyard/platform';
import { StateCache } from '@switchyard/state';
import { inSpan, messageTrace, recording, sampledParent, trace, withTrace } from '@switchyard/telemetry';
import { anySignal } from './any-signal';
import { CancelRegistry } from './cancel.registry';
import { WorkerRepository } from './worker.repository';

/** What a node's code receives. Treat `state` as read-only: it is shared with the cache. */
export interface NodeInput {
  task: TaskMessage;
  state: Readonly<RuntimeState>;
  /** Aborted when the run is cancelled: pass it to every LLM and HTTP call. */
  signal: AbortSignal;
  attempt: number;
  /** This is the task's last delivery: a retryable failure now becomes the action's error. */
  lastDelivery?: boolean;
  /** Streams a piece of generated text to the run's event stream (`token` events). */
  emitToken: (text: string) => Promise<void>;
}

/** What a node's code returns; the runtime turns it into the action of a delta (`nodeDelta`). */
export type NodeOutput = NodeAnswer;

export type NodeImpl = (input: NodeInput) => Promise<NodeOutput>;

const taskSeconds =
  (register.getSingleMetric('switchyard_node_task_seconds') as Histogram | undefined) ??
  new Histogram({
    name: 'switchyard_node_task_seconds',
    help: 'Duration of a node task, from receipt to its delta acknowledged by JetStream',
    labelNames: ['node', 'outcome'],
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  });

const PUBLISH_RETRY_MIN_MS = 100;
/**
 * Published deltas kept for redeliveries of their task. A redelivery comes within an ack wait;
 * older ones, and any beyond this bound, are found in run_tasks once the orchestrator recorded
 * them — the map covers the deltas it has not recorded yet (typically a few per replica).
 */
const REMEMBERED_DELTAS = 512;
const PUBLISH_RETRY_MAX_MS = 1_000;

/**
 * A publish failure that a later try with the same message id can mend: the connection is down
 * or reconnecting, the server (or its JetStream) is not answering yet. Refusals of the message
 * itself are not.
 */
export function isTransientPublishError(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = String(e?.code ?? '');
  const message = String(e?.message ?? '');
  if (/MAX_PAYLOAD|BAD_SUBJECT|BAD_HEADER|BAD_JSON/i.test(code) || /maximum payload/i.test(message)) {
    return false;
  }
  return (
    /^(TIMEOUT|503|CONNECTION_CLOSED|CONNECTION_DRAINING|DISCONNECT|CONNECTION_REFUSED|NO_RESPONDERS)$/i.test(
      code,
    ) || /timeout|no responders|disconnect|connection (closed|draining|refused)|reconnect/i.test(message)
  );
}

/** Deliveries of one task before a retryable failure becomes the action's error. */
export const MAX_DELIVER = 5;

/**
 * Runs one task of a node: validates the message, reads the state at the task's version from the
 * cache, calls the node's code with a cancel signal, and publishes the resulting delta with a
 * publish ack (`Nats-Msg-Id` = task id) before the transport acks the task.
 */
@Injectable()
export class NodeRuntime {
  private readonly logger = new Logger(NodeRuntime.name);
  /** Tasks being worked on in this process, by task id. */
  private readonly working = new Map<string, Promise<void>>();
  /** Deltas this process finished lately (published, or still being published), by task id (insertion order = age). */
  private readonly published = new Map<string, DeltaMessage>();
  private readonly tasks: WorkerRepository;

  constructor(
    @Inject(JetStreamConnection) private readonly nats: JetStreamConnection,
    @Inject(StateCache) private readonly cache: StateCache,
    @Inject(RunEventWriter) private readonly events: RunEventWriter,
    @Inject(CancelRegistry) private readonly cancels: CancelRegistry,
    @Inject(ServiceConfig) private readonly config: ServiceConfig,
    @Inject(DataSource) ds: DataSource,
  ) {
    this.tasks = new WorkerRepository(ds);
  }

  async execute(data: unknown, ctx: JetStreamContext, impl: NodeImpl): Promise<void> {
    const task = await this.parseTask(data, ctx.getSubject());
    const log = { run_id: task.run_id, thread_id: task.thread_id, task_id: task.task_id, node: task.node };
    if (this.cancels.isCancelled(task.run_id)) {
      this.logger.log({ ...log, msg: 'task of a cancelled run skipped' });
      return;
    }
    // A task comes again when its ack was lost (e.g. NATS restarted right after the delta went
    // out) or its ack wait ran out while the delta waited for NATS. Its work is not done twice:
    // a delivery still being worked on here is joined, a delta this process already published is
    // sent again (same message id), and one the orchestrator already recorded is acknowledged.
    const working = this.working.get(task.task_id);
    if (working) {
      this.logger.log({ ...log, msg: 'task delivered again while still being worked on: joined' });
      return working;
    }
    const sent = this.published.get(task.task_id);
    if (sent) {
      this.logger.log({ ...log, msg: 'task delivered again after its delta was published: re-sent' });
      return this.publishDelta(sent, task, log, ctx.signal);
    }
    // Nothing is awaited between the check above and `working.set` below: two deliveries of one
    // task arriving together (a redelivery and the reaper's re-dispatch) join one piece of work.
    const run = async () => {
      if (ctx.getDeliveryCount() > 1 && (await this.alreadyRecorded(task.task_id))) {
        this.logger.log({ ...log, msg: 'task delivered again after its delta was recorded: acknowledged' });
        return;
      }
      return this.work(task, log, ctx, impl);
    };
    // The task's span, in the trace the task carries (none when that trace is not kept).
    const parent = sampledParent(task.trace?.['traceparent']);
    const work = (
      parent
        ? inSpan(
            `node ${task.node}`,
            {
              run_id: task.run_id,
              thread_id: task.thread_id,
              task_id: task.task_id,
              node: task.node,
              attempt: task.attempt + ctx.getDeliveryCount() - 1,
              'state.version': task.version,
              'messaging.message.delivery_count': ctx.getDeliveryCount(),
            },
            run,
            { parent },
          )
        : run()
    ).finally(() => this.working.delete(task.task_id));
    this.working.set(task.task_id, work);
    return work;
  }

  private async work(
    task: TaskMessage,
    log: { run_id: string; thread_id: string; task_id: string; node: string },
    ctx: JetStreamContext,
    impl: NodeImpl,
  ): Promise<void> {
    const endTimer = taskSeconds.startTimer({ node: task.node });
    const deliveries = ctx.getDeliveryCount();
    const startedAt = new Date().toISOString();
    // The state loads while the start is counted and, in the same round trip to Redis, its
    // node_started event written (awaited before the delta goes out, so it precedes the step's
    // action event). A start the deliveries do not account for writes its event only once the
    // task is known not to be recorded already.
    const loading = this.cache.get(task.thread_id, task.version, task.deltas);
    loading.catch(() => undefined);
    const begun = await this.events.startTask(task, deliveries).catch((err: Error) => {
      this.logger.warn({ ...log, msg: `task start not counted: ${err.message}` });
      return { starts: deliveries, started: false };
    });
    const { starts } = begun;
    // A redelivery JetStream numbered 1 (its consumer's earlier client died) is still a retry.
    const attempt = task.attempt + Math.max(deliveries, starts) - 1;
    if (starts > deliveries && (await this.alreadyRecorded(task.task_id))) {
      this.logger.log({ ...log, msg: 'task delivered again after its delta was recorded: acknowledged' });
      return;
    }
    if (recording()) {
      trace.getActiveSpan()?.setAttribute('attempt', attempt);
    }
    const started = begun.started
      ? Promise.resolve()
      : this.events
          .append(task.run_id, 'node_started', { node: task.node, task_id: task.task_id, attempt })
          .catch((err: Error) =>
            this.logger.warn({ ...log, msg: `node_started event not written: ${err.message}` }),
          );

    const state = await loading;
    const cancel = this.cancels.open(task.run_id, task);
    // The drain's deadline passed with this task still at work: the transport handed it back
    // (another delivery does it again), so its calls stop and nothing of it is published.
    const handedBack = ctx.signal;
    const combined = anySignal([cancel.signal, handedBack]);
    const signal = combined.signal;
    const release = (): void => {
      combined.dispose();
      cancel.release();
    };
    // The task's model calls not written yet: its delta carries them (see TaskCalls).
    const calls = new TaskCalls();
    // The rows of a delta that may never arrive (its publish failed).
    let unsent: MeteredCall[] = [];
    try {
      let out: NodeOutput;
      try {
        // Every LLM call of the node's code is metered against this task (and finds the run's
        // tenant and pinned models) without the node passing anything.
        const llmContext = { ...log, attempt, calls };
        out = await runWithLlmCallContext(llmContext, () =>
          impl({
            task,
            state,
            signal,
            attempt,
            lastDelivery: deliveries >= MAX_DELIVER,
            emitToken: async (text) => {
              // `attempt`: a retried task's tokens replace the earlier attempt's (docs/api.md).
              await this.events.append(task.run_id, 'token', {
                node: task.node,
                task_id: task.task_id,
                attempt,
                text,
              });
            },
          }),
        );
      } catch (err) {
        if (handedBack.aborted) {
          this.logger.log({ ...log, msg: 'work aborted: handed back as the service shuts down' });
          return;
        }
        if (signal.aborted) {
          this.logger.log({ ...log, msg: 'work aborted: the run was cancelled' });
          return;
        }
        const e = err as Error & { code?: string };
        if (isRetryable(err) && deliveries < MAX_DELIVER) {
          this.logger.warn({
            ...log,
            err: e,
            msg: `node failed (delivery ${deliveries}/${MAX_DELIVER}); will retry`,
          });
          throw err;
        }
        this.logger.error({ ...log, err: e, msg: 'node failed; the run fails with its error' });
        out = {
          summary: `${task.node} failed: ${e.message}`,
          result: null,
          next: [],
          error: nodeFailureOf(err),
        };
      } finally {
        release();
      }
      if (handedBack.aborted) {
        // Finished after the hand-back: the redelivery's result is the one that counts.
        this.logger.log({ ...log, msg: 'work discarded: handed back as the service shuts down' });
        return;
      }

      if (recording()) {
        const usage = out.usage ?? ZERO_USAGE;
        trace.getActiveSpan()?.setAttributes({
          'gen_ai.usage.input_tokens': usage.prompt_tokens,
          'gen_ai.usage.output_tokens': usage.completion_tokens,
          next: out.next.join(','),
          ...(out.error ? { 'error.type': out.error.code } : {}),
        });
      }
      const usageCalls = await calls.take();
      const message: DeltaMessage = {
        task_id: task.task_id,
        run_id: task.run_id,
        node: task.node,
        base_version: task.version,
        ...withTrace(messageTrace(task.trace?.['traceparent'])),
        ...(task.tenant_id ? { tenant_id: task.tenant_id, priority: task.priority ?? 'interactive' } : {}),
        delta: nodeDelta(task.node, out, { startedAt, attempt }),
        ...(usageCalls.length ? { usage_calls: usageCalls } : {}),
      };
      await started;
      // Remembered before it goes out: should the publish give up (NATS away past the task's
      // deadline), the task's redelivery sends this delta again instead of doing the work (and its
      // model calls) twice.
      this.remember(task.task_id, message);
      unsent = usageCalls; // until JetStream has the delta
      await this.publishDelta(message, task, log, handedBack);
      unsent = [];
      endTimer({ outcome: message.delta.action.error ? 'error' : 'ok' });
      this.logger.log({ ...log, msg: 'delta published', next: message.delta.action.next });
    } finally {
      // Whatever ends the task without its delta in JetStream — a retry, a cancel, a hand-back, a
      // publish given up — writes the calls no delta carries before the task lets go (a second
      // write of a call that did arrive is a no-op). After a published delta nothing is left.
      await calls.flush(unsent);
    }
  }

  /** Keeps a published delta for redeliveries of its task (bounded: the oldest go first). */
  private remember(taskId: string, message: DeltaMessage): void {
    this.published.set(taskId, message);
    if (this.published.size > REMEMBERED_DELTAS) {
      this.published.delete(this.published.keys().next().value as string);
    }
  }

  /** Whether the orchestrator has this task's delta (arrived, or applied with its step). */
  private async alreadyRecorded(taskId: string): Promise<boolean> {
    return this.tasks.taskRecorded(taskId);
  }

  /**
   * Publishes the finished delta, waiting out a NATS outage: the work is done (its LLM calls are
   * paid for), so the delta is re-sent with the same message id — JetStream keeps one copy —
   * until it is acknowledged or the task's deadline passes (then the reaper dispatches the task
   * again anyway). The transport keeps the task in progress meanwhile. Only errors that a retry
   * cannot mend (the payload is too large, a stream refuses the subject) fail at once, and so
   * does every retry once the task was handed back (the service is shutting down).
   */
  private async publishDelta(
    message: DeltaMessage,
    task: TaskMessage,
    log: Record<string, unknown>,
    handedBack: AbortSignal,
  ): Promise<void> {
    const subject = deltaSubject(this.config.service);
    const deadline = Date.parse(task.deadline);
    for (let attempt = 1; ; attempt++) {
      try {
        await this.nats.publish(subject, message, { msgId: task.task_id, signal: handedBack });
        if (attempt > 1) {
          this.logger.log({ ...log, msg: `delta published after ${attempt} attempts` });
        }
        return;
      } catch (err) {
        const wait = Math.min(PUBLISH_RETRY_MAX_MS, PUBLISH_RETRY_MIN_MS * 2 ** (attempt - 1));
        if (!isTransientPublishError(err) || Date.now() + wait > deadline || handedBack.aborted) {
          throw err;
        }
        this.logger.warn({
          ...log,
          msg: `delta not published (attempt ${attempt}): ${(err as Error).message}; retrying in ${wait} ms`,
        });
        await sleep(wait, undefined, { signal: handedBack }).catch(() => {
          throw err;
        });
      }
    }
  }

  private async parseTask(data: unknown, subject: string): Promise<TaskMessage> {
    const parsed = TaskMessageSchema.safeParse(data);
    if (parsed.success) {
      return parsed.data;
    }
    const reason = describeZodError(parsed.error);
    const runId = (data as { run_id?: unknown } | null)?.run_id;
    this.logger.error({ subject, run_id: runId, msg: `invalid task message: ${reason}` });
    if (isUuid(runId)) {
      await this.nats.publish(
        SUBJECTS.runFail,
        {
          run_id: runId,
          code: 'invalid_task' satisfies RunErrorCode,
          message: `invalid task on ${subject}: ${reason}`,
          subject,
        },
        { msgId: `fail:${subject}:${runId}:${(data as { task_id?: unknown }).task_id ?? ''}` },
      );
    }
    throw new NonRetryableMessageError(`invalid task message on ${subject}: ${reason}`);
  }
}

/**
 * The action error of a node that threw: the error's own code when the run-error catalogue knows
 * it; any other code (a library's: a Postgres SQLSTATE, `ECONNREFUSED`) is not a run error code
 * clients can look up, so the action fails as `node_failed` with that code kept in the message.
 */
export function nodeFailureOf(err: unknown): RunError {
  const e = err as (Error & { code?: unknown }) | null | undefined;
  const message = (e && typeof e.message === 'string' && e.message) || String(err);
  const code = e?.code;
  if (typeof code === 'string' && isRunErrorCode(code)) {
    return { code, message };
  }
  return {
    code: 'node_failed',
    message: typeof code === 'string' || typeof code === 'number' ? `${message} (${code})` : message,
  };
}
