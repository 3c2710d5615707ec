import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  type AgentCard,
  type CancelTaskRequest,
  type DeleteTaskPushNotificationConfigRequest,
  type GetTaskPushNotificationConfigRequest,
  type GetTaskRequest,
  type ListTaskPushNotificationConfigsRequest,
  type ListTaskPushNotificationConfigsResponse,
  type ListTasksRequest,
  type ListTasksResponse,
  type Message,
  type SendMessageRequest,
  type StreamResponse,
  type SubscribeToTaskRequest,
  type Task,
  type TaskPushNotificationConfig,
  TaskState,
} from '@a2a-js/sdk';
import {
  ContentTypeNotSupportedError,
  ExtendedAgentCardNotConfiguredError,
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import { type RunEvent, type RunStatus, isAnswerNode, isTerminal, isUuid } from '@switchyard/contracts';
import { RunEventHub, RunEventReader } from '@switchyard/events';
import { ApiException } from '../http/api.exception';
import { AnswerRelay } from '../openai/answer-relay';
import { followRun } from '../runs/follow-run';
import { RunsService } from '../runs/runs.service';
import { A2aRepository, type PushConfig } from './a2a.repository';
import {
  type TaskRun,
  agentMessage,
  answerArtifact,
  artifactEvent,
  statusEvent,
  statusOf,
  statusesOf,
  taskEvent,
  taskOf,
  textPart,
} from './a2a.views';

/** Who calls, and which agent the endpoint serves. */
export interface A2aCaller {
  tenantId: string;
  agentId: string;
  /** A graph agent takes a data part as its start form; the default agent takes text. */
  graph: boolean;
  /** The request's client went away: what follows a run for it stops. */
  gone?: AbortSignal;
}

type Followed = RunEvent | { ended: RunStatus };

/**
 * An agent's A2A server, over runs: a task is a run, a context is a thread. `SendMessage` starts a
 * run (or, naming a task that wants input, answers its question), blocking until the task
 * completes or wants input unless `returnImmediately`; `SendStreamingMessage` and
 * `SubscribeToTask` stream the task, each step a `working` status update and the answer as
 * artifact chunks; `CancelTask` cancels the run; push notification configs are stored and sent
 * by `A2aPushDelivery`. The SDK's JSON-RPC transport speaks the wire (1.0, and 0.3 through its
 * compatibility layer).
 */
@Injectable()
export class A2aTasks {
  private readonly logger = new Logger(A2aTasks.name);

  constructor(
    @Inject(RunsService) private readonly runs: RunsService,
    @Inject(A2aRepository) private readonly repo: A2aRepository,
    @Inject(RunEventHub) private readonly hub: RunEventHub,
    @Inject(RunEventReader) private readonly reader: RunEventReader,
    @Inject(DataSource) private readonly ds: DataSource,
  ) {}

  /** The request handler the SDK's transport calls, for one caller and agent. */
  handlerFor(caller: A2aCaller, card: AgentCard, gone?: AbortSignal): A2ARequestHandler {
    const withSignal: A2aCaller = { ...caller, gone };
    return {
      getAgentCard: () => Promise.resolve(card),
      getAuthenticatedExtendedAgentCard: () =>
        Promise.reject(new ExtendedAgentCardNotConfiguredError('this agent has no extended card')),
      sendMessage: (p) => this.sendMessage(withSignal, p),
      sendMessageStream: (p) => this.sendMessageStream(withSignal, p),
      getTask: (p) => this.getTask(withSignal, p),
      cancelTask: (p) => this.cancelTask(withSignal, p),
      listTasks: (p) => this.listTasks(withSignal, p),
      resubscribe: (p) => this.resubscribe(withSignal, p),
      createTaskPushNotificationConfig: (p) => this.createPush(withSignal, p),
      getTaskPushNotificationConfig: (p) => this.getPush(withSignal, p),
      listTaskPushNotificationConfigs: (p) => this.listPush(withSignal, p),
      deleteTaskPushNotificationConfig: (p) => this.deletePush(withSignal, p),
    };
  }

  async sendMessage(caller: A2aCaller, p: SendMessageRequest): Promise<Task> {
    const started = await this.begin(caller, p);
    if (p.configuration?.returnImmediately) {
      return taskOf(await this.taskRun(caller, started.runId), p.configuration.historyLength);
    }
    await this.followed(started.runId, started.cursor, started.answered, caller.gone);
    return taskOf(await this.taskRun(caller, started.runId), p.configuration?.historyLength);
  }

  async *sendMessageStream(caller: A2aCaller, p: SendMessageRequest): AsyncGenerator<StreamResponse> {
    const started = await this.begin(caller, p);
    yield* this.stream(caller, started.runId, started.cursor, started.answered);
  }

  async getTask(caller: A2aCaller, p: GetTaskRequest): Promise<Task> {
    return taskOf(await this.taskRun(caller, p.id), p.historyLength);
  }

  async cancelTask(caller: A2aCaller, p: CancelTaskRequest): Promise<Task> {
    const run = await this.taskRun(caller, p.id);
    if (isTerminal(run.status)) {
      throw new TaskNotCancelableError(`task ${p.id} is already ${run.status}`);
    }
    try {
      await this.runs.cancel(caller.tenantId, run.id);
    } catch (err) {
      if (!(err instanceof ApiException)) {
        throw err;
      }
      // It ended meanwhile: the task is what it ended as.
    }
    await this.followed(run.id, '0-0', new Set(run.waiting ? [run.waiting.task_id] : []), caller.gone);
    return taskOf(await this.taskRun(caller, run.id));
  }

  async listTasks(caller: A2aCaller, p: ListTasksRequest): Promise<ListTasksResponse> {
    if (p.contextId && !isUuid(p.contextId)) {
      throw new RequestMalformedError(`contextId "${p.contextId}" is not one of this server's`);
    }
    const size = Math.min(Math.max(p.pageSize ?? 50, 1), 100);
    const before = p.pageToken ? pageOf(p.pageToken) : undefined;
    const rows = await this.repo.taskRuns(caller.tenantId, caller.agentId, {
      contextId: p.contextId || undefined,
      statuses: statusesOf(p.status),
      after: p.statusTimestampAfter ? new Date(p.statusTimestampAfter) : undefined,
      before,
      limit: size + 1,
    });
    const page = rows.slice(0, size);
    const last = page[page.length - 1];
    return {
      tasks: page.map((r) => {
        const t = taskOf(r, p.historyLength ?? 0);
        return p.includeArtifacts ? t : { ...t, artifacts: [] };
      }),
      nextPageToken: rows.length > size && last ? `${last.at_us}_${last.id}` : '',
      pageSize: page.length,
      totalSize: rows[0]?.total ?? 0,
    };
  }

  async *resubscribe(caller: A2aCaller, p: SubscribeToTaskRequest): AsyncGenerator<StreamResponse> {
    const run = await this.taskRun(caller, p.id);
    if (isTerminal(run.status)) {
      throw new UnsupportedOperationError(`task ${p.id} is ${run.status}: read it with GetTask`);
    }
    // From the start of the run's event log: every step and the whole answer so far, then live.
    yield* this.stream(caller, run.id, '0-0', new Set());
  }

  async createPush(caller: A2aCaller, p: TaskPushNotificationConfig): Promise<TaskPushNotificationConfig> {
    await this.taskRun(caller, p.taskId);
    const config = pushConfigOf(p);
    await this.repo.savePush(caller.tenantId, config);
    return wirePush(config);
  }

  async getPush(
    caller: A2aCaller,
    p: GetTaskPushNotificationConfigRequest,
  ): Promise<TaskPushNotificationConfig> {
    await this.taskRun(caller, p.taskId);
    const [config] = await this.repo.pushConfigs(caller.tenantId, p.taskId, p.id);
    if (!config) {
      throw new RequestMalformedError(`task ${p.taskId} has no push notification config "${p.id}"`);
    }
    return wirePush(config);
  }

  async listPush(
    caller: A2aCaller,
    p: ListTaskPushNotificationConfigsRequest,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    await this.taskRun(caller, p.taskId);
    return {
      configs: (await this.repo.pushConfigs(caller.tenantId, p.taskId)).map(wirePush),
      nextPageToken: '',
    };
  }

  async deletePush(caller: A2aCaller, p: DeleteTaskPushNotificationConfigRequest): Promise<void> {
    await this.taskRun(caller, p.taskId);
    if (!(await this.repo.deletePush(caller.tenantId, p.taskId, p.id))) {
      throw new RequestMalformedError(`task ${p.taskId} has no push notification config "${p.id}"`);
    }
  }

  /** The task, or TaskNotFound when it is not a run of this tenant's agent. */
  private async taskRun(caller: A2aCaller, id: string): Promise<TaskRun> {
    const run = isUuid(id) ? await this.repo.taskRun(caller.tenantId, caller.agentId, id) : null;
    if (!run) {
      throw new TaskNotFoundError(`no task "${id}" of this agent`);
    }
    return run;
  }

  /**
   * What a message does: answer the question of the task it names (a task that wants input), or
   * start a run — in its context's thread when it names one. Its push config is kept for the task.
   */
  private async begin(
    caller: A2aCaller,
    p: SendMessageRequest,
  ): Promise<{ runId: string; cursor: string; answered: Set<string> }> {
    const message = p.message;
    if (!message) {
      throw new RequestMalformedError('message is required');
    }
    const input = inputOf(message);
    let begun: { runId: string; cursor: string; answered: Set<string> };
    if (message.taskId) {
      begun = await this.answer(caller, message.taskId, input);
    } else {
      if (!input.text.trim()) {
        throw new RequestMalformedError('a message that starts a task needs a text part (the prompt)');
      }
      if (input.data !== undefined && !caller.graph) {
        throw new ContentTypeNotSupportedError(
          "this agent takes text: a data part is a graph agent's start form (or the answer to a question)",
        );
      }
      if (message.contextId && !isUuid(message.contextId)) {
        throw new RequestMalformedError(`contextId "${message.contextId}" is not one of this server's`);
      }
      const { run } = await this.apiCall(() =>
        this.runs.create(caller.tenantId, {
          input: {
            prompt: input.text,
            ...(input.data !== undefined ? { inputs: input.data } : {}),
          },
          ...(message.contextId ? { thread_id: message.contextId } : {}),
          agent_id: caller.agentId,
          multitask: 'reject',
          metadata: { source: 'a2a', ...(message.messageId ? { a2a_message_id: message.messageId } : {}) },
        }),
      );
      begun = { runId: run.run_id, cursor: '0-0', answered: new Set() };
    }
    const push = p.configuration?.taskPushNotificationConfig;
    if (push?.url) {
      await this.repo.savePush(caller.tenantId, pushConfigOf({ ...push, taskId: begun.runId }));
    }
    return begun;
  }

  /** The answer to the question the task waits on: its text, or its data for a structured question. */
  private async answer(
    caller: A2aCaller,
    taskId: string,
    input: { text: string; data: Record<string, unknown> | undefined },
  ): Promise<{ runId: string; cursor: string; answered: Set<string> }> {
    const run = await this.taskRun(caller, taskId);
    if (run.status !== 'waiting' || !run.waiting) {
      throw new UnsupportedOperationError(
        isTerminal(run.status)
          ? `task ${taskId} is ${run.status}: send a new message with its contextId to go on with the conversation`
          : `task ${taskId} is working, not waiting for input`,
      );
    }
    if (run.waiting.client_calls?.length) {
      throw new UnsupportedOperationError(
        `task ${taskId} waits for the results of client functions (OpenAI tools), which A2A cannot send`,
      );
    }
    const schemaType = (run.waiting.input_schema as { type?: unknown }).type;
    let value: unknown = input.text;
    if (schemaType !== undefined && schemaType !== 'string') {
      if (input.data !== undefined) {
        value = input.data;
      } else {
        try {
          value = JSON.parse(input.text);
        } catch {
          throw new RequestMalformedError(
            `the question wants ${JSON.stringify(run.waiting.input_schema)}: answer with a data part (or its JSON as text)`,
          );
        }
      }
    }
    const cursor = (await this.reader.lastSeq(run.id)) ?? '0-0';
    await this.apiCall(() => this.runs.resume(caller.tenantId, run.id, value));
    return { runId: run.id, cursor, answered: new Set([run.waiting.task_id]) };
  }

  /** The task as a stream: the task, each step, the answer's chunks, and its last status. */
  private async *stream(
    caller: A2aCaller,
    runId: string,
    cursor: string,
    answered: Set<string>,
  ): AsyncGenerator<StreamResponse> {
    const first = await this.taskRun(caller, runId);
    yield taskEvent(taskOf(first));
    const relay = new AnswerRelay();
    let streamed = '';
    let diverged = false;
    for await (const e of this.events(runId, cursor, answered, caller.gone)) {
      if ('ended' in e) {
        break;
      }
      if (e.event_type === 'node_started') {
        relay.started((e.payload as { task_id: string }).task_id);
      } else if (e.event_type === 'action') {
        const a = e.payload as { id?: number; node?: string; summary?: string };
        yield statusEvent(first, {
          state: TaskState.TASK_STATE_WORKING,
          message: agentMessage(first, `${runId}:step:${a.id ?? e.seq}`, [
            textPart(`${a.node ?? 'step'}: ${a.summary ?? ''}`),
          ]),
          timestamp: new Date(e.ts).toISOString(),
        });
      } else if (
        e.event_type === 'token' &&
        !diverged &&
        isAnswerNode((e.payload as { node: string }).node)
      ) {
        const text = relay.accept(e.payload as { task_id: string; attempt?: number; text: string });
        if (typeof text !== 'string') {
          diverged = true;
        } else if (text) {
          yield artifactEvent(first, [textPart(text)], streamed.length > 0, false);
          streamed += text;
        }
      }
    }
    const final = await this.taskRun(caller, runId);
    if (final.status === 'succeeded') {
      const whole = answerArtifact(final.output);
      const answer = whole.parts[0].content?.$case === 'text' ? whole.parts[0].content.value : '';
      // The streamed chunks are the answer: close them (with its data); else send it whole.
      yield streamed && !diverged && answer === streamed
        ? artifactEvent(first, whole.parts.slice(1), true, true)
        : artifactEvent(first, whole.parts, false, true);
    }
    yield statusEvent(final, statusOf(final));
  }

  /** Follows a run until it ends or waits anew, then ends. */
  private followed(
    runId: string,
    cursor: string,
    answered: Set<string>,
    signal?: AbortSignal,
  ): Promise<RunStatus> {
    return followRun({ hub: this.hub, ds: this.ds, runId, cursor, answered, signal });
  }

  /** The run's events after `cursor` as they come, then how it stopped. */
  private async *events(
    runId: string,
    cursor: string,
    answered: Set<string>,
    gone?: AbortSignal,
  ): AsyncGenerator<Followed> {
    const queue: Followed[] = [];
    let wake: (() => void) | undefined;
    let failure: unknown;
    void followRun({
      hub: this.hub,
      ds: this.ds,
      runId,
      cursor,
      answered,
      signal: gone,
      onEvent: (e) => {
        queue.push(e);
        wake?.();
      },
    }).then(
      (ended) => {
        queue.push({ ended });
        wake?.();
      },
      (err: unknown) => {
        failure = err ?? new Error('the run could not be followed');
        wake?.();
      },
    );
    for (;;) {
      while (queue.length) {
        const next = queue.shift() as Followed;
        yield next;
        if ('ended' in next) {
          return;
        }
      }
      if (failure) {
        throw failure;
      }
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
  }

  /** Runs an API call, its refusals (a busy or unknown thread, an answer that does not fit) as A2A's. */
  private async apiCall<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      if (err instanceof ApiException) {
        this.logger.debug({ msg: 'A2A request refused', code: err.code, reason: err.message });
        throw new RequestMalformedError(err.message);
      }
      throw err;
    }
  }
}

/** A message's text parts (joined) and its data part; files are not read. */
function inputOf(message: Message): { text: string; data: Record<string, unknown> | undefined } {
  const texts: string[] = [];
  let data: Record<string, unknown> | undefined;
  for (const part of message.parts) {
    const c = part.content;
    if (c?.$case === 'text') {
      texts.push(c.value);
    } else if (c?.$case === 'data') {
      if (data !== undefined || !c.value || typeof c.value !== 'object' || Array.isArray(c.value)) {
        throw new RequestMalformedError('a message carries at most one data part, a JSON object');
      }
      data = c.value as Record<string, unknown>;
    } else {
      throw new ContentTypeNotSupportedError('file parts are not read: send text (and a data part)');
    }
  }
  return { text: texts.join('\n'), data };
}

function pushConfigOf(p: TaskPushNotificationConfig): PushConfig {
  let url: URL;
  try {
    url = new URL(p.url);
  } catch {
    throw new RequestMalformedError(`push notification url "${p.url}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new RequestMalformedError('a push notification url is http(s)');
  }
  if (url.username || url.password) {
    throw new RequestMalformedError('a push notification url carries no credentials: use authentication');
  }
  return {
    id: p.id || randomUUID(),
    taskId: p.taskId,
    url: url.toString(),
    token: p.token,
    authentication:
      p.authentication?.scheme && p.authentication.credentials ? { ...p.authentication } : undefined,
  };
}

function wirePush(c: PushConfig): TaskPushNotificationConfig {
  return {
    tenant: '',
    id: c.id,
    taskId: c.taskId,
    url: c.url,
    token: c.token,
    authentication: c.authentication,
  };
}

function pageOf(token: string): { atMicros: string; id: string } {
  const [atMicros, id] = token.split('_');
  if (!id || !isUuid(id) || !/^\d{1,20}$/.test(atMicros)) {
    throw new RequestMalformedError('pageToken is not one this server gave');
  }
  return { atMicros, id };
}
