import { z } from 'zod';
import { loadConfig, secretEnvSchema } from '@switchyard/config';
import { parseHostAllowList, parseStdioAllowList } from '@switchyard/contracts';
import { type HostLookup, dnsEnvSchema, toolLookup } from '@switchyard/net-guard';

const schema = dnsEnvSchema.extend({
  // Operator-approved stdio commands; checked here again before anything is spawned.
  SWITCHYARD_MCP_STDIO_ALLOW: z.string().default(''),
  SWITCHYARD_MCP_HTTP_ALLOW_HOSTS: z.string().default(''),
  // How often the mcp_servers table is read for added, changed and removed servers.
  SWITCHYARD_MCP_POLL_MS: z.coerce.number().int().min(200).max(300_000).default(5000),
  // Upper bound of the reconnect back-off of a server that fails to start, crashes or hangs.
  SWITCHYARD_MCP_MAX_BACKOFF_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
});

export class McpConfig {
  readonly stdioAllow: string[][];
  readonly httpAllowHosts: string[];
  /** How http MCP servers' host names are resolved (SWITCHYARD_DNS_SERVERS, else the system). */
  readonly lookup: HostLookup;
  readonly pollMs: number;
  readonly maxBackoffMs: number;
  /** Opens the sealed env and headers of the servers (the gateway sealed them with the same key). */
  readonly secretKey: string;
  constructor(env: NodeJS.ProcessEnv = process.env) {
    const cfg = loadConfig(schema, env);
    this.stdioAllow = parseStdioAllowList(cfg.SWITCHYARD_MCP_STDIO_ALLOW);
    this.httpAllowHosts = parseHostAllowList(cfg.SWITCHYARD_MCP_HTTP_ALLOW_HOSTS);
    this.lookup = toolLookup(cfg);
    this.pollMs = cfg.SWITCHYARD_MCP_POLL_MS;
    this.maxBackoffMs = cfg.SWITCHYARD_MCP_MAX_BACKOFF_MS;
    this.secretKey = loadConfig(secretEnvSchema, env).SWITCHYARD_SECRET_KEY;
  }
}
