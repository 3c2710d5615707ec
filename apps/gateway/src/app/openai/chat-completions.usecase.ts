import { Inject, Injectable } from '@nestjs/common';
import { type ChatMessage as HistoryMessage, UserIdSchema, isUuid } from '@switchyard/contracts';
import { AgentModels, type ResolvedModel } from './agent-models.service';
import { type ChatCompletionRequest, type ChatMessage, textOf } from './chat-completions.dto';
import { type ClientCallResult, ClientTurns, type Turn } from './client-turns';
import { OpenAiException } from './openai.exception';

/**
 * A chat completions request as a turn over a run: a request ending with a user message starts
 * a run (a new thread, or the next turn of one); one ending with `tool` messages brings the
 * results of the client functions a waiting run asked for.
 */
@Injectable()
export class ChatCompletionTurns {
  constructor(
    @Inject(ClientTurns) private readonly turns: ClientTurns,
    @Inject(AgentModels) private readonly models: AgentModels,
  ) {}

  /** The turn the request starts or continues (400 in OpenAI's shape for a request that cannot be one). */
  async begin(
    tenantId: string,
    body: ChatCompletionRequest,
    threadHeader: string | undefined,
  ): Promise<Turn> {
    if (threadHeader !== undefined && !isUuid(threadHeader)) {
      throw OpenAiException.invalid(null, 'X-Thread-Id must be a thread id (UUID)');
    }
    const model = await this.models.resolve(tenantId, body.model);
    const last = body.messages[body.messages.length - 1];
    return last.role === 'tool'
      ? this.continueRun(tenantId, body, model, threadHeader)
      : this.startRun(tenantId, body, model, threadHeader);
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
    return this.turns.continueWith(
      tenantId,
      model,
      toolResultsOf(body.messages),
      threadHeader,
      'X-Thread-Id',
    );
  }
}

/**
 * The trailing `tool` messages as client function results; 400 naming a message that answers a
 * call the assistant message before them did not make.
 */
export function toolResultsOf(messages: readonly ChatMessage[]): ClientCallResult[] {
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
  return results.map((r) => ({
    callId: r.message.tool_call_id ?? '',
    output: textOf(r.message.content),
    param: `messages[${r.index}].tool_call_id`,
  }));
}

/**
 * Earlier messages of a new thread as its chat history: developer messages count as system ones;
 * the assistant's tool calls and the tools' results are kept as the assistant's text.
 */
export function historyOf(messages: readonly ChatMessage[]): HistoryMessage[] {
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
