import type { Usage } from '@switchyard/contracts';
import type { WaitingClientCall } from '@switchyard/persistence';
import type { Outcome } from './client-turns';
import { responseIdOf } from './responses.dto';
import type { ResponseRow } from './responses.repository';

export type ResponseStatus = 'queued' | 'in_progress' | 'completed' | 'failed' | 'cancelled';

export interface OutputText {
  type: 'output_text';
  text: string;
  annotations: unknown[];
  logprobs: unknown[];
}

export type OutputItem =
  | {
      type: 'message';
      id: string;
      status: 'in_progress' | 'completed';
      role: 'assistant';
      content: OutputText[];
    }
  | {
      type: 'function_call';
      id: string;
      call_id: string;
      name: string;
      arguments: string;
      status: 'in_progress' | 'completed';
    };

/** Where a response stands: its status, what it output, why it failed, what it cost. */
export interface ResponseState {
  status: ResponseStatus;
  output: OutputItem[];
  error: { code: string; message: string } | null;
  usage: Usage | null;
  completedAt: number | null;
}

const hexOf = (uuid: string) => uuid.replace(/-/g, '');

/** The id of a response's message item. */
export function messageIdOf(responseId: string): string {
  return `msg_${hexOf(responseId)}`;
}

export function outputText(text: string): OutputText {
  return { type: 'output_text', text, annotations: [], logprobs: [] };
}

/** A client function call as a `function_call` output item (its id derived from the call's). */
export function functionCallItem(call: WaitingClientCall): OutputItem {
  return {
    type: 'function_call',
    id: `fc_${call.id.replace(/[^A-Za-z0-9_-]/g, '')}`,
    call_id: call.id,
    name: call.name,
    arguments: JSON.stringify(call.arguments),
    status: 'completed',
  };
}

/**
 * How a followed run ended as a response: an answer (or a question the run asks) is an assistant
 * message, client function calls are `function_call` items; a failed run is a failed response.
 */
export function stateOf(responseId: string, outcome: Outcome, usage: Usage): ResponseState {
  const completedAt = Math.floor(Date.now() / 1000);
  switch (outcome.kind) {
    case 'answer':
    case 'question':
      return {
        status: 'completed',
        output: [
          {
            type: 'message',
            id: messageIdOf(responseId),
            status: 'completed',
            role: 'assistant',
            content: [outputText(outcome.content)],
          },
        ],
        error: null,
        usage,
        completedAt,
      };
    case 'tool_calls':
      return {
        status: 'completed',
        output: outcome.calls.map(functionCallItem),
        error: null,
        usage,
        completedAt,
      };
    case 'failed':
      return {
        status: outcome.status === 'cancelled' ? 'cancelled' : 'failed',
        output: [],
        error: outcome.status === 'cancelled' ? null : { code: 'server_error', message: outcome.message },
        usage,
        completedAt,
      };
  }
}

/** The Responses API's `response` object. */
export function responseObject(row: ResponseRow, state: ResponseState): Record<string, unknown> {
  const req = row.request;
  return {
    id: responseIdOf(row.id),
    object: 'response',
    created_at: Math.floor(new Date(row.created_at).getTime() / 1000),
    status: state.status,
    background: req.background,
    completed_at: state.completedAt,
    error: state.error,
    incomplete_details: null,
    instructions: req.instructions,
    max_output_tokens: null,
    metadata: req.metadata,
    model: row.model,
    output: state.output,
    parallel_tool_calls: true,
    previous_response_id: row.previous_response_id ? responseIdOf(row.previous_response_id) : null,
    reasoning: null,
    store: true,
    temperature: null,
    text: { format: req.text_format },
    tool_choice: req.tool_choice,
    tools: req.tools.map((t) => ({
      type: 'function',
      name: t.name,
      description: t.description ?? null,
      parameters: t.parameters ?? null,
      strict: t.strict ?? null,
    })),
    top_p: null,
    truncation: 'disabled',
    usage: state.usage && {
      input_tokens: state.usage.prompt_tokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: state.usage.completion_tokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: state.usage.total_tokens,
    },
    user: req.user,
    // Switchyard's own: the run that answered and its thread.
    run_id: row.run_id,
    thread_id: row.thread_id,
  };
}

/**
 * The Responses API's stream events for one response, numbered in order: the response's
 * creation, the answer's text as it streams (its message item opened at the first text), the
 * function calls, and the end (`response.completed`, or `response.failed` for a failed or
 * cancelled run).
 */
export class ResponseEvents {
  private seq = 0;
  private text: string | null = null;
  private readonly itemId: string;

  constructor(
    private readonly write: (frame: string) => void,
    responseUuid: string,
  ) {
    this.itemId = messageIdOf(responseUuid);
  }

  private event(type: string, body: Record<string, unknown>): void {
    this.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...body, sequence_number: this.seq++ })}\n\n`);
  }

  started(response: Record<string, unknown>): void {
    this.event('response.created', { response });
    this.event('response.in_progress', { response });
  }

  /** Text of the answer, as it streams. */
  delta(text: string): void {
    if (!text) {
      return;
    }
    this.open();
    this.text += text;
    this.event('response.output_text.delta', {
      item_id: this.itemId,
      output_index: 0,
      content_index: 0,
      delta: text,
      logprobs: [],
    });
  }

  /** The text streamed so far. */
  get streamed(): string {
    return this.text ?? '';
  }

  /** The response as it ended: the message's last text and its close, or its function calls. */
  finished(response: Record<string, unknown>, state: ResponseState): void {
    state.output.forEach((item, index) => {
      if (item.type === 'message') {
        const full = item.content[0]?.text ?? '';
        if (full.startsWith(this.streamed)) {
          this.delta(full.slice(this.streamed.length));
        }
        this.open();
        this.event('response.output_text.done', {
          item_id: this.itemId,
          output_index: index,
          content_index: 0,
          text: full,
          logprobs: [],
        });
        this.event('response.content_part.done', {
          item_id: this.itemId,
          output_index: index,
          content_index: 0,
          part: outputText(full),
        });
        this.event('response.output_item.done', { output_index: index, item });
        return;
      }
      this.event('response.output_item.added', {
        output_index: index,
        item: { ...item, arguments: '', status: 'in_progress' },
      });
      this.event('response.function_call_arguments.delta', {
        item_id: item.id,
        output_index: index,
        delta: item.arguments,
      });
      this.event('response.function_call_arguments.done', {
        item_id: item.id,
        output_index: index,
        name: item.name,
        arguments: item.arguments,
      });
      this.event('response.output_item.done', { output_index: index, item });
    });
    // The protocol has no event for a cancelled response: it ends as `response.failed`, with
    // `status: cancelled` in the response it carries.
    this.event(state.status === 'completed' ? 'response.completed' : 'response.failed', { response });
  }

  /** The stream cannot go on (the answer was regenerated differently after part of it was sent). */
  error(code: string, message: string): void {
    this.event('error', { code, message, param: null });
  }

  private open(): void {
    if (this.text !== null) {
      return;
    }
    this.text = '';
    this.event('response.output_item.added', {
      output_index: 0,
      item: { type: 'message', id: this.itemId, status: 'in_progress', role: 'assistant', content: [] },
    });
    this.event('response.content_part.added', {
      item_id: this.itemId,
      output_index: 0,
      content_index: 0,
      part: outputText(''),
    });
  }
}
