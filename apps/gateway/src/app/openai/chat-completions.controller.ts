import { Body, Controller, Headers, Inject, Post, Res, UseFilters, UseGuards } from '@nestjs/common';
import type { Response } from 'express';
import { type ChatMessage as HistoryMessage, UserIdSchema, isUuid } from '@switchyard/contracts';
import type { WaitingClientCall } from '@switchyard/persistence';
import { ApiKeyGuard, Tenant, type TenantContext } from '../auth/api-key.guard';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { AgentModels, type ResolvedModel } from './agent-models.service';
import {
  type ChatCompletionRequest,
  ChatCompletionRequestPipe,
  type ChatMessage,
  textOf,
} from './chat-completions.dto';
import { ClientTurns, type Turn } from './client-turns';
import { OpenAiExceptionFilter } from './openai-exception.filter';
import { OpenAiException } from './openai.exception';

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
    @Inject(ClientTurns) private readonly turns: ClientTurns,
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
      const ended = await this.turns.follow(turn);
      const outcome = await this.turns.outcome(turn, tenant.tenantId, ended);
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
        usage: await this.turns.usageOf(turn),
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
    const ended = await this.turns.followText(turn, (text) => {
      streamed += text;
      res.write(chunk({ content: text }, null));
    });
    if (ended === 'diverged') {
      // A retried answer departed from the text already sent, which cannot be taken back: the
      // stream ends in an error rather than with two attempts' texts run together.
      res.write(
        `data: ${JSON.stringify({ error: { message: `the answer was regenerated after ${streamed.length} characters had been sent and differs from them; read it whole from run ${turn.runId} (X-Run-Id) or ask again`, type: 'server_error', param: null, code: 'stream_interrupted' } })}\n\n`,
      );
      res.write('data: [DONE]\n\n');
      res.end();
      return;
    }
    const outcome = await this.turns.outcome(turn, tenant.tenantId, ended);
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
      res.write(frame([], { usage: await this.turns.usageOf(turn) }));
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
    return this.turns.start(tenantId, model, {
      prompt: textOf(body.messages[body.messages.length - 1].content),
      threadId,
      // A continued thread has the conversation already: only a new one takes the earlier messages.
      history: threadId ? [] : history,
      client: {
        // tool_choice "none": the client's functions are not offered (the agent's own tools stay the agent's).
        ...(body.tools?.length && body.tool_choice !== 'none' ? { client_tools: body.tools } : {}),
        ...(body.response_format && body.response_format.type !== 'text'
          ? { response_format: body.response_format }
          : {}),
      },
      metadata: {
        source: 'chat.completions',
        ...(body.user !== undefined && !userIsThread ? { user_id: body.user } : {}),
      },
    });
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
    return this.turns.continueWith(
      tenantId,
      model,
      results.map((r) => ({
        callId: r.message.tool_call_id ?? '',
        output: textOf(r.message.content),
        param: `messages[${r.index}].tool_call_id`,
      })),
      threadHeader,
      'X-Thread-Id',
    );
  }
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
