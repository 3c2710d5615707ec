import { z } from 'zod';
import { RunPrioritySchema } from './messages.schema';

// MCP servers a tenant connects (DESIGN: tools as nodes). Shared by the gateway, which accepts
// their configuration, and the tool-executor, which connects them: both apply the same rules.

/** `mcp.<server>.<tool>`: the server's name is a node-name segment, so a lower-case identifier without `__`. */
export const McpServerNameSchema = z
  .string()
  .max(32)
  .regex(
    /^[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*$/,
    'must be a lower-case identifier (a-z, 0-9, single - or _ between them), at most 32 characters',
  );

export const MCP_NODE_PREFIX = 'mcp';

/**
 * `SWITCHYARD_MCP_STDIO_ALLOW`: the stdio commands an operator approved, comma-separated. An
 * entry is an executable (a bare name or an absolute path, matched exactly) optionally followed
 * by the leading arguments it must be given, separated by spaces: `/usr/bin/node
 * /opt/mcp/fs/index.js` allows that script with any further arguments, while a bare `node`
 * would allow any script (and `node -e`), i.e. any code. Empty (the default): no stdio server.
 */
export function parseStdioAllowList(raw: string | undefined): string[][] {
  return (raw ?? '')
    .split(',')
    .map((entry) => entry.trim().split(/\s+/).filter(Boolean))
    .filter((argv) => argv.length > 0);
}

/** True when `command` with `args` starts with one of the allowed argv prefixes. */
export function isStdioCommandAllowed(
  allow: readonly (readonly string[])[],
  command: string,
  args: readonly string[],
): boolean {
  const argv = [command, ...args];
  return allow.some((prefix) => prefix.length <= argv.length && prefix.every((p, i) => argv[i] === p));
}

/** `SWITCHYARD_MCP_HTTP_ALLOW_HOSTS`: hosts an http MCP server may use although they are private. */
export function parseHostAllowList(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
}

export const MCP_TIMEOUT_MS = { min: 1000, max: 600_000, default: 30_000 } as const;
export const MCP_MAX_OUTPUT_BYTES = { min: 256, max: 5_000_000, default: 100_000 } as const;

/**
 * A tool call another service makes on a tenant's MCP server through the tool-executor that holds
 * its connection (core NATS request/reply, queue group of the tool-executors): a graph Agent's MCP
 * tool, say. The node names the tool (`mcp.<server>.<tool>`); the run says whose it is.
 */
export const MCP_CALL_SUBJECT = 'sy.rpc.mcp.call';
export const McpCallRequestSchema = z
  .object({
    run_id: z.string().uuid(),
    node: z.string().min(1).max(300),
    args: z.record(z.string(), z.unknown()),
    timeout_ms: z.number().int().min(100).max(600_000),
    // The run's tenant and priority: the tool-executors answer requests fairly across tenants.
    // The tenant is also the only one whose server the call may reach: a request without it
    // (from a planner older than the field) is refused as mcp_bad_request.
    tenant_id: z.string().min(1).max(100).optional(),
    priority: RunPrioritySchema.optional(),
  })
  .strict();
export type McpCallRequest = z.infer<typeof McpCallRequestSchema>;
export const McpCallReplySchema = z.union([
  z.object({ ok: z.literal(true), text: z.string(), truncated: z.boolean() }),
  z.object({ ok: z.literal(false), code: z.string(), message: z.string() }),
]);
export type McpCallReply = z.infer<typeof McpCallReplySchema>;

/**
 * A call of one of Switchyard's catalogue tools (calculator, http_get, http_request, sql_query)
 * another service makes through the tool-executors (core NATS request/reply, their queue group):
 * a graph Agent's tool. The run says whose call it is (a data source is the run's tenant's);
 * `call_id` is the idempotency key a non-idempotent tool sends on (the same on a retry).
 */
export const TOOL_CALL_SUBJECT = 'sy.rpc.tool.call';
export const ToolRpcRequestSchema = z
  .object({
    run_id: z.string().uuid(),
    tool: z.string().min(1).max(100),
    args: z.record(z.string(), z.unknown()),
    call_id: z.string().min(1).max(300),
    timeout_ms: z.number().int().min(100).max(600_000),
    tenant_id: z.string().min(1).max(100).optional(),
    priority: RunPrioritySchema.optional(),
  })
  .strict();
export type ToolRpcRequest = z.infer<typeof ToolRpcRequestSchema>;
/** Its answer: the tool's result as JSON text (capped), or its failure. */
export const ToolRpcReplySchema = McpCallReplySchema;
export type ToolRpcReply = McpCallReply;
