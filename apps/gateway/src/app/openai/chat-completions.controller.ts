import { Body, Controller, Headers, Inject, Post, Res, UseFilters, UseGuards } from '@nestjs/common';
import type { Response } from 'express';
import { DataSource } from 'typeorm';
import {
  type ChatMessage as HistoryMessage,
  type ClientRequestOptions,
  type RunStatus,
  type Usage,
  UserIdSchema,
  isAnswerNode,
  isUuid,
} from '@switchyard/contracts';
import { RunEventHub, RunEventReader } from '@switchyard/events';
import type { WaitingClientCall } from '@switchyard/persistence';
import { ApiKeyGuard, Tenant, type TenantContext } from '../auth/api-key.guard';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { followRun } from '../runs/follow-run';
import { RunsService } from '../runs/runs.service';
import { AgentModels, type ResolvedModel } from './agent-models.service';
import {
  type ChatCompletionRequest,
  ChatCompletionRequestPipe,
  type ChatMessage,
  textOf,
} from './chat-completions.dto';
import { AnswerRelay } from './answer-relay';
import { OpenAiExceptionFilter } from './openai-exception.filter';
import { OpenAiErrorCode, OpenAiException } from './openai.exception';

const WATCHDOG_MS = 5000;
// A chat completion waits this long for its run; longer runs belong on /v1/runs + SSE.
const MAX_WAIT_MS = 10 * 60_000;
const ZERO: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

/** The run a request follows, and where it picks it up. */
interface Turn {
  runId: string;
  threadId: string;
  /** Events after this id are this request's (the run's earlier requests saw the rest). */
  cursor: string;
  /** Human tasks this request answered: a wait on one of them is the wait that just ended. */
  answered: ReadonlySet<string>;
  /** The run's metered usage before this request: a response reports only its own share. */
  usageBefore: Usage;
}

/** How the followed part of the run ended, as the response tells it. */
type Outcome =
  | { kind: 'answer'; content: string }
  | { kind: 'tool_calls'; calls: WaitingClientCall[] }
  | { kind: 'question'; content: string }
  | { kind: 'failed'; message: string };

/**
 * OpenAI-compatible chat completions: `model` names the agent (id or name, optionally
 * `@version`); the last user message is the prompt, earlier messages seed the thread's chat
 * history, `X-Thread-Id` (or a thread id in `user`) continues a thread. The client's `tools` are
 * offered to the planner beside the agent's own: when it calls one, the run waits and the
 * response carries `tool_calls` (`finish_reason: tool_calls`); the client's next request, ending
 * with the `tool` messages of the results, continues that run (matched by `tool_call_id`).
 * `response_format` makes the answer JSON. Streaming sends the output node's tokens as
 * `chat.completion.chunk`s, then `[DONE]`. Errors come in OpenAI's shape.
 */
@Controller('v1/chat')
@UseGuards(ApiKeyGuard, RateLimitGuard)
@UseFilters(OpenAiExceptionFilter)
export class ChatCompletionsController {
  constructor(
    @Inject(RunsService) private readonly runs: RunsService,
    @Inject(RunEventHub) private readonly hub: RunEventHub,
    @Inject(RunEventReader) private readonly reader: RunEventReader,
    @Inject(DataSource) private readonly ds: DataSource,
    @Inject(AgentModels) private readonly models: AgentModels,
  ) {}

  @Post('completions')
  async create(
    @Tenant() tenant: TenantContext,
    @Body(new ChatCompletionRequestPipe()) body: ChatCompletionRequest,
    @Headers('x-thread-id') threadHeader: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    if (threadHeader !== undefined && !isUuid(threadHeader)) {
      throw OpenAiException.invalid(null, 'X-Thread-Id must be a thread id (UUID)');
    }
    const model = await this.models.resolve(tenant.tenantId, body.model);
    const last = body.messages[body.messages.length - 1];
    const turn =
      last.role === 'tool'
        ? await this.continueRun(tenant.tenantId, body, model, threadHeader)
        : await this.startRun(tenant.tenantId, body, model, threadHeader);
    res.setHeader('X-Thread-Id', turn.threadId);
    res.setHeader('X-Run-Id', turn.runId);
    const id = `chatcmpl-${turn.runId}`;
    const created = Math.floor(Date.now() / 1000);
    const frame = (choices: unknown[], extra: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices, ...extra })}\n\n`;
    const chunk = (delta: Record<string, unknown>, finish: string | null) =>
      frame([{ index: 0, delta, finish_reason: finish }]);

    if (!body.stream) {
      const ended = await this.follow(turn);
      const outcome = await this.outcome(turn, tenant.tenantId, ended);
      if (outcome.kind === 'failed') {
        throw new ApiException(ApiErrorCode.RunFailed, outcome.message);
      }
      res.status(200).json({
        id,
        object: 'chat.completion',
        created,
        model: body.model,
        choices: [
          {
            index: 0,
            message:
              outcome.kind === 'tool_calls'
                ? { role: 'assistant', content: null, tool_calls: toolCallsOf(outcome.calls), refusal: null }
                : { role: 'assistant', content: outcome.content, refusal: null },
            finish_reason: outcome.kind === 'tool_calls' ? 'tool_calls' : 'stop',
            logprobs: null,
          },
        ],
        usage: await this.usageOf(turn),
      });
      return;
    }

    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
    });
    res.write(chunk({ role: 'assistant', content: '' }, null));
    let streamed = '';
    let diverged = false;
    const relay = new AnswerRelay();
    const ended = await this.follow(
      turn,
      (token) => {
        if (diverged) {
          return;
        }
        const text = relay.accept(token);
        if (typeof text !== 'string') {
          diverged = true;
          return;
        }
        if (text) {
          streamed += text;
          res.write(chunk({ content: text }, null));
        }
      },
      (taskId) => relay.started(taskId),
    );
    if (diverged) {
      // A retried answer departed from the text already sent, which cannot be taken back: the
      // stream ends in an error rather than with two attempts' texts run together.
      res.write(
        `data: ${JSON.stringify({ error: { message: `the answer was regenerated after ${streamed.length} characters had been sent and differs from them; read it whole from run ${turn.runId} (X-Run-Id) or ask again`, type: 'server_error', param: null, code: 'stream_interrupted' } })}\n\n`,
      );
      res.write('data: [DONE]\n\n');
      res.end();
      return;
    }
    const outcome = await this.outcome(turn, tenant.tenantId, ended);
    switch (outcome.kind) {
      case 'answer':
      case 'question':
        // Whatever the token events missed (a restarted output node, a structured answer) is sent before the end.
        if (outcome.content.startsWith(streamed) && outcome.content.length > streamed.length) {
          res.write(chunk({ content: outcome.content.slice(streamed.length) }, null));
        }
        res.write(chunk({}, 'stop'));
        break;
      case 'tool_calls':
        res.write(
          chunk({ tool_calls: toolCallsOf(outcome.calls).map((c, index) => ({ index, ...c })) }, null),
        );
        res.write(chunk({}, 'tool_calls'));
        break;
      case 'failed':
        res.write(
          `data: ${JSON.stringify({ error: { message: outcome.message, type: 'server_error', param: null, code: ApiErrorCode.RunFailed } })}\n\n`,
        );
        break;
    }
    if (body.stream_options?.include_usage) {
      res.write(frame([], { usage: await this.usageOf(turn) }));
    }
    res.write('data: [DONE]\n\n');
    res.end();
  }

  /** A request ending with a user message: a new run (a new thread, or the next turn of one). */
  private async startRun(
    tenantId: string,
    body: ChatCompletionRequest,
    model: ResolvedModel,
    threadHeader: string | undefined,
  ): Promise<Turn> {
    // `user` is OpenAI's end-user id: a thread id when it is one (kept for older clients), else the run's user.
    const userIsThread = body.user !== undefined && isUuid(body.user);
    const threadId = threadHeader ?? (userIsThread ? body.user : undefined);
    if (body.user !== undefined && !userIsThread && !UserIdSchema.safeParse(body.user).success) {
      throw OpenAiException.invalid('user', 'user must be 1 to 200 characters');
    }
    const history = historyOf(body.messages.slice(0, -1));
    const client: ClientRequestOptions = {
      // tool_choice "none": the client's functions are not offered (the agent's own tools stay the agent's).
      ...(body.tools?.length && body.tool_choice !== 'none' ? { client_tools: body.tools } : {}),
      ...(body.response_format && body.response_format.type !== 'text'
        ? { response_format: body.response_format }
        : {}),
    };
    const { run } = await this.runs.create(
      tenantId,
      {
        input: { prompt: textOf(body.messages[body.messages.length - 1].content) },
        thread_id: threadId,
        agent_id: model.agentId,
        ...(model.agentVersion ? { agent_version: model.agentVersion } : {}),
        multitask: 'reject',
        metadata: {
          source: 'chat.completions',
          ...(body.user !== undefined && !userIsThread ? { user_id: body.user } : {}),
        },
        ...(history.length && !threadId ? { history } : {}),
      },
      client,
    );
    return {
      runId: run.run_id,
      threadId: run.thread_id,
      cursor: '0-0',
      answered: new Set(),
      usageBefore: ZERO,
    };
  }

  /**
   * A request ending with tool messages: the results of the client functions a waiting run
   * asked for (found by `tool_call_id`, within the tenant and the `X-Thread-Id` thread if given).
   */
  private async continueRun(
    tenantId: string,
    body: ChatCompletionRequest,
    model: ResolvedModel,
    threadHeader: string | undefined,
  ): Promise<Turn> {
    const messages = body.messages;
    let first = messages.length;
    while (first > 0 && messages[first - 1].role === 'tool') {
      first--;
    }
    const results = messages.slice(first).map((m, k) => ({ index: first + k, message: m }));
    const asked = first > 0 ? messages[first - 1] : undefined;
    for (const r of results) {
      if (!asked?.tool_calls?.some((c) => c.id === r.message.tool_call_id)) {
        throw OpenAiException.invalid(
          `messages[${r.index}].tool_call_id`,
          `tool message ${r.index} answers "${r.message.tool_call_id}", which the assistant message before the tool messages did not call`,
        );
      }
    }
    const callId = results[0].message.tool_call_id ?? '';
    const rows = await this.runs.waitingForClientCall(tenantId, callId, threadHeader, 2);
    if (rows.length === 0) {
      throw new OpenAiException(
        400,
        OpenAiErrorCode.ToolCallNotFound,
        `no paused run waits for the tool call "${callId}" (the run ended, was cancelled, or already has its result)`,
        `messages[${results[0].index}].tool_call_id`,
      );
    }
    if (rows.length > 1) {
      throw OpenAiException.invalid(
        `messages[${results[0].index}].tool_call_id`,
        `several paused runs wait for the tool call "${callId}": send X-Thread-Id`,
      );
    }
    const run = rows[0];
    if (run.agent_id !== model.agentId) {
      throw OpenAiException.invalid('model', `the paused run belongs to the model "${run.agent_id}"`);
    }
    const calls = run.waiting.client_calls ?? [];
    for (const r of results) {
      if (!calls.some((c) => c.id === r.message.tool_call_id)) {
        throw OpenAiException.invalid(
          `messages[${r.index}].tool_call_id`,
          `the paused run did not ask for the tool call "${r.message.tool_call_id}"`,
        );
      }
    }
    const missing = calls.filter((c) => !results.some((r) => r.message.tool_call_id === c.id));
    if (missing.length) {
      throw OpenAiException.invalid(
        'messages',
        `the paused run waits for the results of every tool call: missing ${missing.map((c) => c.id).join(', ')}`,
      );
    }
    const cursor = (await this.reader.lastSeq(run.id)) ?? '0-0';
    const usageBefore = await this.runs.meteredUsage(run.id);
    await this.runs.answerClientCalls(
      run.id,
      run.waiting,
      results.map((r) => ({ tool_call_id: r.message.tool_call_id ?? '', output: textOf(r.message.content) })),
    );
    return {
      runId: run.id,
      threadId: run.thread_id,
      cursor,
      answered: new Set(calls.map((c) => c.task_id)),
      usageBefore,
    };
  }

  /** What the response says: the answer, the client calls the run now waits for, or a failure. */
  private async outcome(turn: Turn, tenantId: string, ended: RunStatus): Promise<Outcome> {
    const { runId } = turn;
    if (ended === 'waiting') {
      const waiting = await this.runs.waitingOf(runId);
      // Calls this request answered may still be listed while an ask_user of the same step waits.
      const calls = (waiting?.client_calls ?? []).filter((c) => !turn.answered.has(c.task_id));
      if (calls.length) {
        return { kind: 'tool_calls', calls };
      }
      // ask_user: the question is the answer; POST /v1/runs/:id/resume (X-Run-Id) brings the user's.
      return { kind: 'question', content: waiting?.question ?? '' };
    }
    const final = await this.runs.get(tenantId, runId);
    if (ended !== 'succeeded') {
      return {
        kind: 'failed',
        message: `the run ${ended}: ${(final.error as { message?: string } | null)?.message ?? 'no answer'}`,
      };
    }
    return { kind: 'answer', content: answerOf(final.output) };
  }

  private async usageOf(turn: Turn): Promise<Usage> {
    const now = await this.runs.meteredUsage(turn.runId);
    return {
      prompt_tokens: now.prompt_tokens - turn.usageBefore.prompt_tokens,
      completion_tokens: now.completion_tokens - turn.usageBefore.completion_tokens,
      total_tokens: now.total_tokens - turn.usageBefore.total_tokens,
    };
  }

  /**
   * Follows the run's events after the turn's cursor until it ends or waits again (not for a
   * task this request answered), handing the answer nodes' tokens to `onToken`.
   */
  private follow(
    turn: Turn,
    onToken?: (token: { task_id: string; attempt?: number; text: string }) => void,
    onStart?: (taskId: string) => void,
  ): Promise<RunStatus> {
    return followRun({
      hub: this.hub,
      ds: this.ds,
      runId: turn.runId,
      cursor: turn.cursor,
      answered: turn.answered,
      watchdogMs: WATCHDOG_MS,
      maxWaitMs: MAX_WAIT_MS,
      onEvent: (e) => {
        if (e.event_type === 'node_started' && onStart) {
          onStart((e.payload as { task_id: string }).task_id);
        }
        if (e.event_type === 'token' && onToken && isAnswerNode((e.payload as { node: string }).node)) {
          onToken(e.payload as { task_id: string; attempt?: number; text: string });
        }
      },
    });
  }
}

function answerOf(output: unknown): string {
  const answer = (output as { answer?: unknown } | null)?.answer;
  return typeof answer === 'string' ? answer : '';
}

function toolCallsOf(calls: readonly WaitingClientCall[]) {
  return calls.map((c) => ({
    id: c.id,
    type: 'function' as const,
    function: { name: c.name, arguments: JSON.stringify(c.arguments) },
  }));
}

/**
 * Earlier messages of a new thread as its chat history: developer messages count as system ones;
 * the assistant's tool calls and the tools' results are kept as the assistant's text.
 */
function historyOf(messages: readonly ChatMessage[]): HistoryMessage[] {
  return messages.flatMap((m): HistoryMessage[] => {
    const text = textOf(m.content);
    switch (m.role) {
      case 'system':
      case 'developer':
        return [{ role: 'system', content: text }];
      case 'user':
        return [{ role: 'user', content: text }];
      case 'assistant': {
        const calls = (m.tool_calls ?? []).map((c) => `[called ${c.function.name}(${c.function.arguments})]`);
        const content = [text, ...calls].filter(Boolean).join('\n');
        return content ? [{ role: 'assistant', content }] : [];
      }
      case 'tool':
        return [{ role: 'assistant', content: `[result of ${m.tool_call_id ?? 'a tool call'}: ${text}]` }];
    }
  });
}
