import type { z } from 'zod';
import { type RuntimeState, type TaskMessage, describeZodError, findToolCall } from '@switchyard/contracts';

/** A tool's own failure the agent can react to (bad or missing arguments): recorded on the action, the run goes on to reflection. */
export class ToolInputException extends Error {
  readonly retryable = false;
  constructor(
    message: string,
    readonly code = 'invalid_tool_input',
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
  const parsed = schema.safeParse(call.args);
  if (!parsed.success) {
    throw new ToolInputException(`invalid arguments for ${task.node}: ${describeZodError(parsed.error)}`);
  }
  return parsed.data;
}
