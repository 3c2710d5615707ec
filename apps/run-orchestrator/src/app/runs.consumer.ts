import { Controller, Inject, Logger, UseFilters } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import type { z } from 'zod';
import {
  DeltaMessageSchema,
  RunCancelMessageSchema,
  RunFailMessageSchema,
  RunStartMessageSchema,
  SUBJECTS,
  SUBJECT_PATTERNS,
  describeZodError,
  isUuid,
} from '@switchyard/contracts';
import {
  type JetStreamContext,
  JetStreamExceptionFilter,
  NonRetryableMessageError,
} from '@switchyard/jetstream';
import { inRemoteSpan } from '@switchyard/telemetry';
import { ApplyDeltaUseCase } from './apply-delta.usecase';
import { EndRunUseCase } from './end-run.usecase';
import { RunFailureCode } from './orchestrator.exception';
import { StartRunUseCase } from './start-run.usecase';

/** Every message the orchestrator consumes enters here and is validated before anything else. */
@Controller()
// The transport must see the handler's own error (retryable or not), not Nest's generic one.
@UseFilters(new JetStreamExceptionFilter())
export class RunsConsumer {
  private readonly logger = new Logger(RunsConsumer.name);

  constructor(
    @Inject(StartRunUseCase) private readonly startRun: StartRunUseCase,
    @Inject(ApplyDeltaUseCase) private readonly applyDelta: ApplyDeltaUseCase,
    @Inject(EndRunUseCase) private readonly endRun: EndRunUseCase,
  ) {}

  @EventPattern(SUBJECTS.runStart)
  async onStart(@Payload() data: unknown, @Ctx() ctx: JetStreamContext): Promise<void> {
    const msg = await this.parse(RunStartMessageSchema, data, ctx);
    await this.startRun.execute(msg.run_id, msg.thread_id);
  }

  @EventPattern(SUBJECTS.runCancel)
  async onCancel(@Payload() data: unknown, @Ctx() ctx: JetStreamContext): Promise<void> {
    await this.endRun.cancel(await this.parse(RunCancelMessageSchema, data, ctx));
  }

  @EventPattern(SUBJECTS.runFail)
  async onFail(@Payload() data: unknown, @Ctx() ctx: JetStreamContext): Promise<void> {
    await this.endRun.fail(await this.parse(RunFailMessageSchema, data, ctx));
  }

  @EventPattern(SUBJECT_PATTERNS.anyDelta)
  async onDelta(@Payload() data: unknown, @Ctx() ctx: JetStreamContext): Promise<void> {
    const msg = await this.parse(DeltaMessageSchema, data, ctx);
    const service = ctx.getSubject().split('.')[2];
    // The step is a span of the run's trace, child of the task that sent the delta (of nothing
    // when that trace is not kept); its tasks are sent on in it.
    await inRemoteSpan(
      `step ${msg.node}`,
      msg.trace?.['traceparent'],
      () => ({
        run_id: msg.run_id,
        task_id: msg.task_id,
        node: msg.node,
        'messaging.system': 'nats',
        'messaging.destination.name': ctx.getSubject(),
        'messaging.message.delivery_count': ctx.getDeliveryCount(),
      }),
      (traceParent) => this.applyDelta.execute(msg, service, traceParent),
    );
  }

  /** An invalid message is logged with its subject, fails its run, and is terminated. */
  private async parse<S extends z.ZodType>(
    schema: S,
    data: unknown,
    ctx: JetStreamContext,
  ): Promise<z.infer<S>> {
    const parsed = schema.safeParse(data);
    if (parsed.success) {
      return parsed.data;
    }
    const subject = ctx.getSubject();
    const reason = describeZodError(parsed.error);
    const runId = (data as { run_id?: unknown } | null)?.run_id;
    this.logger.error({ subject, run_id: runId, msg: `invalid message: ${reason}` });
    if (isUuid(runId)) {
      await this.endRun.fail({
        run_id: runId,
        code: RunFailureCode.InvalidDelta,
        message: `invalid message on ${subject}: ${reason}`,
      });
    }
    throw new NonRetryableMessageError(`invalid message on ${subject}: ${reason}`);
  }
}
