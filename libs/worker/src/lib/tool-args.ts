import type { z } from 'zod';
import type { NodeOutput } from './node-runtime';
import { guardToolWork } from './tools/tool-guard';
import {
  type RuntimeState,
  type TaskMessage,
  describeZodError,
  findToolCall,
  type RunErrorCode,
  uncheckedRunErrorCode,
} from '@switchyard/contracts';

/** A tool's own failure the agent can react to (bad or missing arguments): recorded on the action, the run goes on to reflection. */
export class ToolInputException extends Error {
  readonly retryable = false;
  constructor(
    message: string,
    readonly code = 'invalid_tool_input' satisfies RunErrorCode,
  ) {
    super(message);
  }
}

/** The arguments the planner gave this task's tool call, validated against the tool's schema. */
export function toolArgs<S extends z.ZodType>(state: RuntimeState, task: TaskMessage, schema: S): z.infer<S> {
  const call = findToolCall(state, task.node, task.call_index);
  if (!call) {
    throw new ToolInputException(
      `no planner call #${task.call_index} of "${task.node}" in turn ${task.turn}: nothing to execute`,
      'missing_tool_call',
    );
  }
  return parseToolArgs(task.node, call.args, schema);
}

/** A tool call's arguments checked against the tool's schema; ToolInputException names what is wrong. */
export function parseToolArgs<S extends z.ZodType>(tool: string, args: unknown, schema: S): z.infer<S> {
  const parsed = schema.safeParse(args);
  if (!parsed.success) {
    throw new ToolInputException(`invalid arguments for ${tool}: ${describeZodError(parsed.error)}`);
  }
  return parsed.data;
}

// Tools always hand their result, or their failure, to reflection.
const TOOL_NEXT = ['reflection'];

/**
 * Runs a tool's work. A failure the agent should see — an error that says it is not retryable
 * and carries a `code` (bad arguments, a refused address, an unknown block, division by zero) —
 * becomes the action's error and the run goes on to reflection; anything else is rethrown, so a
 * transient failure is retried by redelivery. The work runs guarded: an error of it that escapes
 * to the process (an unlistened socket error, a throw in a callback) fails this call, not the
 * service (see tool-guard.ts). On the task's last delivery a transient failure with a code (a
 * network error that outlasted the retries) is an observation too: the agent learns the site is
 * unreachable instead of the run failing.
 */
export async function asToolOutput(
  work: () => Promise<NodeOutput>,
  tool = 'tool',
  lastDelivery = false,
): Promise<NodeOutput> {
  try {
    return await guardToolWork(tool, work);
  } catch (err) {
    const e = err as { retryable?: unknown; code?: unknown; message?: unknown };
    if (err instanceof Error && (e.retryable === false || lastDelivery) && typeof e.code === 'string') {
      return {
        summary: `Failed: ${err.message}`,
        result: null,
        error: { code: uncheckedRunErrorCode(e.code), message: err.message },
        next: TOOL_NEXT,
      };
    }
    throw err;
  }
}
