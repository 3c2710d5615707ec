import { Inject, Injectable } from '@nestjs/common';
import Ajv from 'ajv';
import { CLIENT_TOOL, ClientToolOutputsSchema, type ResumedRunView } from '@switchyard/contracts';
import type { RunWaiting } from '@switchyard/persistence';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { RunsRepository } from './runs.repository';
import { RunsStream, answerDelta, clientResultDelta } from './runs.stream';
import { resumedRunView } from './runs.views';

/**
 * `POST /v1/runs/:id/resume` (and the adapters' resumes): a waiting run's question answered, or
 * the client's results of the functions it called.
 */
@Injectable()
export class ResumeRunUseCase {
  private readonly schemas = new Ajv({ allErrors: true, strict: false });

  constructor(
    @Inject(RunsRepository) private readonly repo: RunsRepository,
    @Inject(RunsStream) private readonly stream: RunsStream,
  ) {}

  /**
   * Answers a waiting run: the input must match the question's input schema (400 otherwise, the
   * run keeps waiting); it becomes the human node's action, delivered like any node's delta.
   */
  async resume(tenantId: string, runId: string, input: unknown): Promise<ResumedRunView> {
    const run = await this.repo.waitingRun(tenantId, runId);
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
      return resumedRunView(runId);
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
    const task = await this.repo.pendingTask(waiting.task_id);
    if (!task) {
      throw new ApiException(ApiErrorCode.RunNotWaiting, `run ${runId} was already resumed`);
    }
    const message = answerDelta(runId, waiting, task.version, input, new Date().toISOString());
    await this.stream.answer(message, task.trace_parent);
    return resumedRunView(runId);
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
    const tasks = await this.repo.pendingTasks(calls.map((c) => c.task_id));
    if (tasks.length < calls.length) {
      throw new ApiException(ApiErrorCode.RunNotWaiting, `run ${runId} already has these results`);
    }
    const now = new Date().toISOString();
    for (const call of calls) {
      const task = tasks.find((t) => t.id === call.task_id);
      await this.stream.clientResult(
        clientResultDelta(runId, waiting, call, task, byId.get(call.id) ?? '', now),
      );
    }
  }
}
