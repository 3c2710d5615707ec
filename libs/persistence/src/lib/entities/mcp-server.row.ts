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
