import { z } from 'zod';
import {
  MCP_MAX_OUTPUT_BYTES,
  MCP_TIMEOUT_MS,
  McpServerNameSchema,
  ToolTypesSchema,
} from '@switchyard/contracts';

// Request and response shapes of /v1/mcp-servers; the OpenAPI description is built from these.

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');
const headerName = z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'must be an HTTP header name');
// Values are secrets: validation messages never quote them.
const secretValue = z.string().max(8192);

const common = {
  name: McpServerNameSchema,
  timeout_ms: z.number().int().min(MCP_TIMEOUT_MS.min).max(MCP_TIMEOUT_MS.max).optional(),
  max_output_bytes: z.number().int().min(MCP_MAX_OUTPUT_BYTES.min).max(MCP_MAX_OUTPUT_BYTES.max).optional(),
  enabled: z.boolean().optional(),
  // Seed 003's tool types by tool name: ["output"] makes a tool present answers (offered when the
  // work is done), ["call", "output"] both; a tool not named is a `call` tool.
  tool_types: z.record(z.string().min(1).max(200), ToolTypesSchema).optional(),
};

export const CreateMcpServerSchema = z.discriminatedUnion('transport', [
  z
    .object({
      ...common,
      transport: z.literal('stdio'),
      command: z.string().min(1).max(1000),
      args: z.array(z.string().max(4000)).max(100).optional(),
      env: z.record(envName, secretValue).optional(),
    })
    .strict(),
  z
    .object({
      ...common,
      transport: z.literal('http'),
      url: z.string().max(2000),
      headers: z.record(headerName, secretValue).optional(),
    })
    .strict(),
]);
export type CreateMcpServer = z.infer<typeof CreateMcpServerSchema>;

export const McpServerSchema = z.object({
  id: z.string().uuid(),
  name: z.string(),
  transport: z.enum(['stdio', 'http']),
  command: z.string().nullable(),
  args: z.array(z.string()),
  // Secrets are write-only: only the names come back.
  env_keys: z.array(z.string()),
  url: z.string().nullable(),
  header_names: z.array(z.string()),
  timeout_ms: z.number(),
  max_output_bytes: z.number(),
  enabled: z.boolean(),
  tool_types: z.record(z.string(), z.array(z.enum(['call', 'output']))),
  // The nodes its tools are registered as (`mcp.<name>.<tool>`), once the tool-executor connected.
  tools: z.array(z.string()),
  created_at: z.string(),
  updated_at: z.string(),
});
export type McpServerView = z.infer<typeof McpServerSchema>;
