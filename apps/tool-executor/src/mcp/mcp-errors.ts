import { type RunErrorCodes } from '@switchyard/contracts';
export type McpErrorCode = RunErrorCodes<
  'mcp_timeout' | 'mcp_unavailable' | 'mcp_tool_error' | 'mcp_error' | 'mcp_unknown_tool' | 'mcp_forbidden'
>;

/**
 * A failed MCP call the agent sees as its action's error (asToolOutput): not retried by
 * redelivery — the connection restarts on its own, and the planner may call again.
 */
export class McpCallError extends Error {
  readonly retryable = false;
  constructor(
    readonly code: McpErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'McpCallError';
  }
}
