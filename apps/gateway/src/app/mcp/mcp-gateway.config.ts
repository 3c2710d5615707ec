import { z } from 'zod';
import { loadConfig } from '@switchyard/config';
import { parseHostAllowList, parseStdioAllowList } from '@switchyard/contracts';

const schema = z.object({
  // Operator-approved stdio commands (see parseStdioAllowList); empty = stdio servers refused.
  SWITCHYARD_MCP_STDIO_ALLOW: z.string().default(''),
  // Hosts an http MCP server may live on although they are (or resolve to) private addresses.
  SWITCHYARD_MCP_HTTP_ALLOW_HOSTS: z.string().default(''),
});

export class McpGatewayConfig {
  readonly stdioAllow: string[][];
  readonly httpAllowHosts: string[];
  constructor(env: NodeJS.ProcessEnv = process.env) {
    const cfg = loadConfig(schema, env);
    this.stdioAllow = parseStdioAllowList(cfg.SWITCHYARD_MCP_STDIO_ALLOW);
    this.httpAllowHosts = parseHostAllowList(cfg.SWITCHYARD_MCP_HTTP_ALLOW_HOSTS);
  }
}
