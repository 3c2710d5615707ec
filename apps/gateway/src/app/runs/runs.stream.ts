import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  ASK_USER,
  CLIENT_TOOL,
  type DeltaMessage,
  type RunCancelMessage,
  type RunStartMessage,
  SUBJECTS,
  deltaSubject,
} from '@switchyard/contracts';
import { JetStreamConnection } from '@switchyard/jetstream';
import type { RunWaiting, WaitingClientCall } from '@switchyard/persistence';
import { SpanKind, inSpan, messageTrace, sampledParent, withTrace } from '@switchyard/telemetry';
import { ApiErrorCode, ApiException } from '../http/api.exception';

// What /v1/runs tells the orchestrator over JetStream: a run to start, a run to cancel, a human's
// answer as a delta. The messages are built by the pure functions below.

const NO_USAGE = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

/** A human's answer to the question a waiting run asked: the human node's action, as a delta. */
export function answerDelta(
  runId: string,
  waiting: RunWaiting,
  baseVersion: number,
  input: unknown,
  now: string,
): DeltaMessage {
  return {
    task_id: waiting.task_id,
    run_id: runId,
    node: waiting.node,
    base_version: baseVersion,
    delta: {
      action: {
        node: waiting.node,
        preparation: `Asked the user: ${waiting.question}`,
        summary: 'The user answered.',
        result: input,
        usage: NO_USAGE,
        next: waiting.resume_at ? [waiting.resume_at] : [...ASK_USER.next],
        started_at: waiting.since,
        finished_at: now,
        attempt: 1,
      },
    },
  };
}

/** The client's result of one of the function calls a waiting run asked for, as a delta. */
export function clientResultDelta(
  runId: string,
  waiting: RunWaiting,
  call: WaitingClientCall,
  task: { version: number; trace_parent: string | null } | undefined,
  result: string,
  now: string,
): DeltaMessage {
  return {
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
        result,
        usage: NO_USAGE,
        next: [...CLIENT_TOOL.next],
        started_at: waiting.since,
        finished_at: now,
        attempt: 1,
      },
    },
  };
}

@Injectable()
export class RunsStream {
  private readonly logger = new Logger('RunsService');

  constructor(@Inject(JetStreamConnection) private readonly nats: JetStreamConnection) {}

  /** Hands the run to the orchestrator (de-duplicated per run). */
  async start(message: RunStartMessage): Promise<void> {
    await this.nats.publish(SUBJECTS.runStart, message, { msgId: `start:${message.run_id}` });
  }

  /** Tells the orchestrator to cancel the run; 503 when it cannot be told (the flag is in Postgres). */
  async cancel(runId: string): Promise<void> {
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

  /**
   * Delivers a human's answer. The task id de-duplicates concurrent resumes: one answer is
   * applied. The answer joins the run's trace (the one its question was asked in).
   */
  async answer(message: DeltaMessage, traceParent: string | null): Promise<void> {
    const send = () =>
      this.nats.publish(
        deltaSubject('gateway'),
        { ...message, ...withTrace(messageTrace()) },
        { msgId: message.task_id },
      );
    const parent = sampledParent(traceParent ?? undefined);
    await (parent
      ? inSpan('run.resume', { run_id: message.run_id, node: message.node, task_id: message.task_id }, send, {
          parent,
          kind: SpanKind.PRODUCER,
        })
      : send());
  }

  /** Delivers a client function's result (the task id de-duplicates a repeated answer). */
  async clientResult(message: DeltaMessage): Promise<void> {
    await this.nats.publish(deltaSubject('gateway'), message, { msgId: message.task_id });
  }
}
