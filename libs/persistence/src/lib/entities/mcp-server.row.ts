/**
 * A row of `mcp_servers` (migration 1700000000023) as pg returns it: written by the gateway's
 * `/v1/mcp-servers`, read by every tool-executor replica. `env_sealed` / `headers_sealed` are
 * SecretBox-sealed JSON; they never leave the services.
 */
export interface McpServerRow {
  id: string;
  tenant_id: string;
  name: string;
  transport: 'stdio' | 'http';
  command: string | null;
  args: string[];
  env_sealed: string | null;
  url: string | null;
  headers_sealed: string | null;
  timeout_ms: number;
  max_output_bytes: number;
  enabled: boolean;
  /** Tool name → its types (migration 1700000000037); a tool not named is `call` only. */
  tool_types: Record<string, ('call' | 'output')[]>;
  created_at: Date;
  updated_at: Date;
}

/**
 * A selected `mcp_servers` row with its loosely typed columns (checked text, JSON) narrowed to what
 * the gateway writes and the column checks keep: once, for every reader.
 */
export function mcpServerRowOf<R extends { transport: string; args: unknown; tool_types: unknown }>(
  r: R,
): Omit<R, 'transport' | 'args' | 'tool_types'> & Pick<McpServerRow, 'transport' | 'args' | 'tool_types'> {
  return {
    ...r,
    transport: r.transport as McpServerRow['transport'],
    args: r.args as McpServerRow['args'],
    tool_types: r.tool_types as McpServerRow['tool_types'],
  };
}
