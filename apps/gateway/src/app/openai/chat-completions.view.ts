import type { Usage } from '@switchyard/contracts';
import type { WaitingClientCall } from '@switchyard/persistence';
import type { Outcome } from './client-turns';

// How a turn's outcome looks to an OpenAI chat completions client: pure mappings, no I/O.

/** The client function calls a run waits for, as OpenAI's `tool_calls`. */
export function toolCallsOf(calls: readonly WaitingClientCall[]) {
  return calls.map((c) => ({
    id: c.id,
    type: 'function' as const,
    function: { name: c.name, arguments: JSON.stringify(c.arguments) },
  }));
}

/** A `chat.completion`: the answer, or the client function calls, of a turn that did not fail. */
export function completionOf(
  head: { id: string; created: number; model: string },
  outcome: Exclude<Outcome, { kind: 'failed' }>,
  usage: Usage,
) {
  return {
    id: head.id,
    object: 'chat.completion',
    created: head.created,
    model: head.model,
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
    usage,
  };
}

/** The SSE frames of one streamed completion (`chat.completion.chunk`s with the same id and time). */
export class ChunkFrames {
  constructor(private readonly head: { id: string; created: number; model: string }) {}

  frame(choices: unknown[], extra: Record<string, unknown> = {}): string {
    const { id, created, model } = this.head;
    return `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...extra })}\n\n`;
  }

  chunk(delta: Record<string, unknown>, finish: string | null): string {
    return this.frame([{ index: 0, delta, finish_reason: finish }]);
  }
}

/** An error in a stream that has begun (its status line is sent): OpenAI's error object as a frame. */
export function errorFrame(message: string, code: string): string {
  return `data: ${JSON.stringify({ error: { message, type: 'server_error', param: null, code } })}\n\n`;
}

/** Why a stream ends in an error when a retried answer departed from the text already sent. */
export function divergedMessage(sent: number, runId: string): string {
  return `the answer was regenerated after ${sent} characters had been sent and differs from them; read it whole from run ${runId} (X-Run-Id) or ask again`;
}

export const DONE_FRAME = 'data: [DONE]\n\n';
