import { Body, Controller, Headers, Inject, Post, Res, UseGuards } from '@nestjs/common';
import type { Response } from 'express';
import { ApiKeyGuard, Tenant, type TenantContext } from '../auth/api-key.guard';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { type ChatCompletionRequest, ChatCompletionRequestPipe } from './chat-completions.dto';
import { ChatCompletionTurns } from './chat-completions.usecase';
import {
  ChunkFrames,
  DONE_FRAME,
  completionOf,
  divergedMessage,
  errorFrame,
  toolCallsOf,
} from './chat-completions.view';
import { ClientTurns } from './client-turns';

/**
 * OpenAI-compatible chat completions: `model` names the agent (id or name, optionally
 * `@version`); the last user message is the prompt, earlier messages seed the thread's chat
 * history, `X-Thread-Id` (or a thread id in `user`) continues a thread. The client's `tools` are
 * offered to the planner beside the agent's own: when it calls one, the run waits and the
 * response carries `tool_calls` (`finish_reason: tool_calls`); the client's next request, ending
 * with the `tool` messages of the results, continues that run (matched by `tool_call_id`).
 * `response_format` makes the answer JSON. Streaming sends the output node's tokens as
 * `chat.completion.chunk`s, then `[DONE]`. Errors come in OpenAI's shape.
 *
 * Transport only: the turn is ChatCompletionTurns' (chat-completions.usecase.ts), the shapes are
 * chat-completions.view.ts'.
 */
@Controller('v1/chat')
@UseGuards(ApiKeyGuard, RateLimitGuard)
export class ChatCompletionsController {
  constructor(
    @Inject(ChatCompletionTurns) private readonly chat: ChatCompletionTurns,
    @Inject(ClientTurns) private readonly turns: ClientTurns,
  ) {}

  @Post('completions')
  async create(
    @Tenant() tenant: TenantContext,
    @Body(new ChatCompletionRequestPipe()) body: ChatCompletionRequest,
    @Headers('x-thread-id') threadHeader: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    const turn = await this.chat.begin(tenant.tenantId, body, threadHeader);
    res.setHeader('X-Thread-Id', turn.threadId);
    res.setHeader('X-Run-Id', turn.runId);
    const head = { id: `chatcmpl-${turn.runId}`, created: Math.floor(Date.now() / 1000), model: body.model };

    if (!body.stream) {
      const ended = await this.turns.follow(turn);
      const outcome = await this.turns.outcome(turn, tenant.tenantId, ended);
      if (outcome.kind === 'failed') {
        throw new ApiException(ApiErrorCode.RunFailed, outcome.message);
      }
      res.status(200).json(completionOf(head, outcome, await this.turns.usageOf(turn)));
      return;
    }

    const frames = new ChunkFrames(head);
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
    });
    res.write(frames.chunk({ role: 'assistant', content: '' }, null));
    let streamed = '';
    const ended = await this.turns.followText(turn, (text) => {
      streamed += text;
      res.write(frames.chunk({ content: text }, null));
    });
    if (ended === 'diverged') {
      // A retried answer departed from the text already sent, which cannot be taken back: the
      // stream ends in an error rather than with two attempts' texts run together.
      res.write(errorFrame(divergedMessage(streamed.length, turn.runId), 'stream_interrupted'));
      res.write(DONE_FRAME);
      res.end();
      return;
    }
    const outcome = await this.turns.outcome(turn, tenant.tenantId, ended);
    switch (outcome.kind) {
      case 'answer':
      case 'question':
        // Whatever the token events missed (a restarted output node, a structured answer) is sent before the end.
        if (outcome.content.startsWith(streamed) && outcome.content.length > streamed.length) {
          res.write(frames.chunk({ content: outcome.content.slice(streamed.length) }, null));
        }
        res.write(frames.chunk({}, 'stop'));
        break;
      case 'tool_calls':
        res.write(
          frames.chunk({ tool_calls: toolCallsOf(outcome.calls).map((c, index) => ({ index, ...c })) }, null),
        );
        res.write(frames.chunk({}, 'tool_calls'));
        break;
      case 'failed':
        res.write(errorFrame(outcome.message, ApiErrorCode.RunFailed));
        break;
    }
    if (body.stream_options?.include_usage) {
      res.write(frames.frame([], { usage: await this.turns.usageOf(turn) }));
    }
    res.write(DONE_FRAME);
    res.end();
  }
}
