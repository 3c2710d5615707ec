import { Body, Controller, Headers, Inject, Post, Res, UseGuards } from '@nestjs/common';
import type { Response } from 'express';
import { DataSource } from 'typeorm';
import { type RunStatus, type Usage, isUuid } from '@switchyard/contracts';
import { RunEventHub } from '@switchyard/events';
import { ApiKeyGuard, Tenant, type TenantContext } from '../auth/api-key.guard';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { ZodPipe } from '../http/zod-body.pipe';
import { RunsService } from '../runs/runs.service';
import { type ChatCompletionRequest, ChatCompletionRequestSchema, textOf } from './chat-completions.dto';

const WATCHDOG_MS = 5000;
// A chat completion waits this long for its run; longer runs belong on /v1/runs + SSE.
const MAX_WAIT_MS = 10 * 60_000;

/**
 * OpenAI-compatible chat completions: `model` names the agent, the last user message is the
 * prompt, earlier messages seed the thread's chat history, `X-Thread-Id` (or a thread id in
 * `user`) continues a thread. The answer is the run's final answer; streaming sends the output
 * node's tokens as `chat.completion.chunk`s, then `[DONE]`.
 */
@Controller('v1/chat')
@UseGuards(ApiKeyGuard, RateLimitGuard)
export class ChatCompletionsController {
  constructor(
    @Inject(RunsService) private readonly runs: RunsService,
    @Inject(RunEventHub) private readonly hub: RunEventHub,
    @Inject(DataSource) private readonly ds: DataSource,
  ) {}

  @Post('completions')
  async create(
    @Tenant() tenant: TenantContext,
    @Body(new ZodPipe(ChatCompletionRequestSchema)) body: ChatCompletionRequest,
    @Headers('x-thread-id') threadHeader: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    const lastUser = body.messages.map((m) => m.role).lastIndexOf('user');
    if (lastUser < 0 || !textOf(body.messages[lastUser].content).trim()) {
      throw new ApiException(ApiErrorCode.InvalidRequest, 'messages must contain a user message with text');
    }
    const threadId = threadHeader ?? (body.user && isUuid(body.user) ? body.user : undefined);
    if (threadId !== undefined && !isUuid(threadId)) {
      throw new ApiException(ApiErrorCode.InvalidRequest, 'X-Thread-Id must be a thread id (UUID)');
    }
    const history = body.messages
      .slice(0, lastUser)
      .flatMap((m) =>
        m.role === 'user' || m.role === 'assistant' || m.role === 'system'
          ? [{ role: m.role, content: textOf(m.content) }]
          : m.role === 'developer'
            ? [{ role: 'system' as const, content: textOf(m.content) }]
            : [],
      );
    const { run } = await this.runs.create(tenant.tenantId, {
      input: { prompt: textOf(body.messages[lastUser].content) },
      thread_id: threadId,
      agent_id: body.model,
      multitask: 'reject',
      metadata: { source: 'chat.completions' },
      ...(history.length && !threadId ? { history } : {}),
    });
    res.setHeader('X-Thread-Id', run.thread_id);
    res.setHeader('X-Run-Id', run.run_id);
    const id = `chatcmpl-${run.run_id}`;
    const created = Math.floor(Date.now() / 1000);
    const chunk = (delta: Record<string, unknown>, finish: string | null) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

    if (!body.stream) {
      const ended = await this.follow(run.run_id);
      const final = await this.runs.get(tenant.tenantId, run.run_id);
      if (ended !== 'succeeded') {
        throw new ApiException(
          ApiErrorCode.RunFailed,
          `the run ${ended}: ${(final.error as { message?: string } | null)?.message ?? 'no answer'}`,
        );
      }
      res.status(200).json({
        id,
        object: 'chat.completion',
        created,
        model: body.model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: answerOf(final.output) },
            finish_reason: 'stop',
          },
        ],
        usage: final.usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
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
    const ended = await this.follow(run.run_id, (text) => {
      streamed += text;
      res.write(chunk({ content: text }, null));
    });
    const final = await this.runs.get(tenant.tenantId, run.run_id);
    if (ended === 'succeeded') {
      // Whatever the token events missed (a restarted output node) is sent before the end.
      const answer = answerOf(final.output);
      if (answer.startsWith(streamed) && answer.length > streamed.length) {
        res.write(chunk({ content: answer.slice(streamed.length) }, null));
      }
      res.write(chunk({}, 'stop'));
    } else {
      const message = (final.error as { message?: string } | null)?.message ?? `the run ${ended}`;
      res.write(`data: ${JSON.stringify({ error: { code: 'run_failed', message } })}\n\n`);
    }
    if (body.stream_options?.include_usage) {
      const usage = (final.usage as Usage | null) ?? {
        prompt_tokens: 0,
        completion_tokens: 0,
        total_tokens: 0,
      };
      res.write(
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [], usage })}\n\n`,
      );
    }
    res.write('data: [DONE]\n\n');
    res.end();
  }

  /** Follows the run's events until `done`, handing the output node's tokens to `onToken`. */
  private follow(runId: string, onToken?: (text: string) => void): Promise<RunStatus> {
    return new Promise<RunStatus>((resolve, reject) => {
      let finished = false;
      let unsubscribe: (() => void) | undefined;
      const end = (fn: () => void) => {
        if (!finished) {
          finished = true;
          clearInterval(watchdog);
          clearTimeout(deadline);
          unsubscribe?.();
          fn();
        }
      };
      // Events can be lost with Redis; Postgres has the run's status.
      const watchdog = setInterval(() => {
        this.ds
          .query('SELECT status FROM runs WHERE id = $1', [runId])
          .then((rows: { status: RunStatus }[]) => {
            const status = rows[0]?.status;
            if (status && ['succeeded', 'failed', 'cancelled'].includes(status)) {
              end(() => resolve(status));
            }
          })
          .catch(() => undefined);
      }, WATCHDOG_MS);
      const deadline = setTimeout(
        () =>
          end(() =>
            reject(
              new ApiException(
                ApiErrorCode.Unavailable,
                `run ${runId} did not finish within ${MAX_WAIT_MS / 1000} s; follow it on /v1/runs`,
              ),
            ),
          ),
        MAX_WAIT_MS,
      );
      this.hub
        .subscribe(runId, '0-0', (events) => {
          for (const e of events) {
            if (
              e.event_type === 'token' &&
              onToken &&
              !finished &&
              (e.payload as { node: string }).node === 'output'
            ) {
              onToken((e.payload as { text: string }).text);
            }
            if (e.event_type === 'done') {
              end(() => resolve((e.payload as { status: RunStatus }).status));
              return;
            }
          }
        })
        .then((u) => {
          unsubscribe = u;
          if (finished) {
            u();
          }
        })
        .catch((err: unknown) => end(() => reject(err)));
    });
  }
}

function answerOf(output: unknown): string {
  const answer = (output as { answer?: unknown } | null)?.answer;
  return typeof answer === 'string' ? answer : '';
}
