import { Logger } from '@nestjs/common';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type CallToolResult,
  ErrorCode,
  McpError,
  type Tool,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { type ToolType, isStdioCommandAllowed } from '@switchyard/contracts';
import { McpCallError } from './mcp-errors';
import type { HostLookup } from '@switchyard/net-guard';
import { safeMcpFetch } from './safe-fetch';

/** One row of mcp_servers with its secrets opened. */
export interface McpServerSpec {
  id: string;
  tenantId: string;
  name: string;
  transport: 'stdio' | 'http';
  command: string | null;
  args: string[];
  env: Record<string, string>;
  url: string | null;
  headers: Record<string, string>;
  timeoutMs: number;
  maxOutputBytes: number;
  /** Tool name → its types; a tool not named is a `call` tool. */
  toolTypes: Record<string, ToolType[]>;
  /** updated_at: a different value means the configuration changed and the connection restarts. */
  version: string;
}

export interface McpConnectionOptions {
  stdioAllow: readonly (readonly string[])[];
  httpAllowHosts: readonly string[];
  /** How an http server's host name is resolved (and then vetted). */
  lookup?: HostLookup;
  /** Delay before the first reconnect; doubles with each failure in a row. */
  baseBackoffMs?: number;
  maxBackoffMs: number;
  /** Called with the server's whole tool list after every (re)connect and list_changed notification. */
  onTools: (tools: Tool[]) => void;
}

type State = 'idle' | 'connecting' | 'ready' | 'waiting' | 'refused' | 'closed';

// A server that lists more than this is cut off: each tool is a node and a planner tool.
const MAX_TOOLS = 500;
const STDERR_TAIL = 2000;

/**
 * The client side of one MCP server: connects (spawning a stdio server or opening a streamable
 * HTTP session), lists its tools, and calls them with the server's timeout. A connection that
 * fails to start, closes (a crashed process, a dropped session) or lets a call time out is
 * closed and started again after an exponential back-off, so one hanging server cannot keep a
 * stuck session: calls meanwhile fail fast with `mcp_unavailable`.
 */
export class McpConnection {
  private readonly logger: Logger;
  private state: State = 'idle';
  private client?: Client;
  private failures = 0;
  private retryTimer?: NodeJS.Timeout;
  private readonly waiters = new Set<() => void>();
  private stderrTail = '';
  private stdio?: StdioClientTransport;
  /** Why the server is not usable, for logs and error messages. */
  lastError?: string;
  /** Connections started after the first (crashes, timeouts, failed starts). */
  restarts = 0;

  constructor(
    readonly spec: McpServerSpec,
    private readonly opts: McpConnectionOptions,
  ) {
    this.logger = new Logger(`McpConnection:${spec.name}`);
  }

  get status(): State {
    return this.state;
  }

  /** The process id of a stdio server while one runs. */
  get pid(): number | null {
    return this.stdio?.pid ?? null;
  }

  start(): void {
    if (this.state === 'idle') {
      void this.connect();
    }
  }

  async close(): Promise<void> {
    this.state = 'closed';
    clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    this.wake();
    await client?.close().catch(() => undefined);
  }

  /** Resolves once connected with the tools listed; rejects with `mcp_unavailable` after `timeoutMs`. */
  async ready(timeoutMs: number, signal: AbortSignal): Promise<void> {
    await this.readyClient(timeoutMs, signal);
  }

  /** Calls a tool; rejects with McpCallError (or the signal's reason when aborted). */
  async call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    const timeoutMs = this.spec.timeoutMs;
    const deadline = Date.now() + timeoutMs;
    const client = await this.readyClient(timeoutMs, signal);
    const remaining = Math.max(1, deadline - Date.now());
    try {
      const result = await client.callTool({ name: tool, arguments: args }, undefined, {
        signal,
        timeout: remaining,
        maxTotalTimeout: remaining,
      });
      this.failures = 0;
      return result as CallToolResult;
    } catch (err) {
      if (signal.aborted) {
        throw err;
      }
      const message = (err as Error).message;
      if (err instanceof McpError && err.code === (ErrorCode.RequestTimeout as number)) {
        this.restart(client, `tool ${tool} timed out after ${timeoutMs} ms`);
        throw new McpCallError(
          'mcp_timeout',
          `MCP server ${this.spec.name}: tool ${tool} did not answer within ${timeoutMs} ms; the connection is restarted`,
        );
      }
      if (err instanceof McpError && err.code !== (ErrorCode.ConnectionClosed as number)) {
        // The server answered with a protocol error (unknown tool, invalid arguments): it is healthy.
        throw new McpCallError('mcp_error', `MCP server ${this.spec.name}: ${message}`);
      }
      this.restart(client, `the connection failed during a call of ${tool}: ${message}`);
      throw new McpCallError(
        'mcp_unavailable',
        `MCP server ${this.spec.name} failed during the call of ${tool} (${message}); the connection is restarted${this.stderrHint()}`,
      );
    }
  }

  private async connect(): Promise<void> {
    this.state = 'connecting';
    const client = new Client({ name: 'switchyard', version: '1.0.0' }, { capabilities: {} });
    try {
      const transport = this.transport();
      let transportError = '';
      client.onclose = () =>
        this.restart(client, `the connection closed${transportError}${this.stderrHint()}`);
      client.onerror = (err) => {
        transportError = `: ${err.message}`;
        this.logger.debug(`transport error: ${err.message}`);
      };
      await client.connect(transport, { timeout: this.spec.timeoutMs });
      if (this.isClosed()) {
        await client.close().catch(() => undefined);
        return;
      }
      this.client = client;
      const tools = await this.listTools(client);
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        this.listTools(client)
          .then((t) => this.opts.onTools(t))
          .catch((err: Error) => this.logger.warn(`tool list refresh failed: ${err.message}`));
      });
      if (this.client !== client) {
        return; // closed or restarted while listing
      }
      this.state = 'ready';
      this.lastError = undefined;
      this.logger.log({ msg: 'MCP server connected', server: this.spec.name, tools: tools.length });
      this.opts.onTools(tools);
      this.wake();
    } catch (err) {
      if (err instanceof McpCallError && err.code === 'mcp_forbidden') {
        this.state = 'refused';
        this.lastError = err.message;
        this.logger.error(`not connecting: ${err.message}`);
        this.wake();
        return;
      }
      this.restart(client, `could not connect: ${(err as Error).message}${this.stderrHint()}`);
    }
  }

  private transport(): Transport {
    const s = this.spec;
    if (s.transport === 'stdio') {
      if (!s.command || !isStdioCommandAllowed(this.opts.stdioAllow, s.command, s.args)) {
        throw new McpCallError(
          'mcp_forbidden',
          `stdio command ${JSON.stringify(s.command)} is not in SWITCHYARD_MCP_STDIO_ALLOW of this tool-executor`,
        );
      }
      // Only the SDK's minimal environment (PATH, HOME…) plus the server's own: never our secrets.
      const transport = new StdioClientTransport({
        command: s.command,
        args: s.args,
        env: { ...getDefaultEnvironment(), ...s.env },
        stderr: 'pipe',
      });
      this.stderrTail = '';
      this.stdio = transport;
      transport.stderr?.on('data', (chunk: Buffer) => {
        this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL);
      });
      return transport;
    }
    return new StreamableHTTPClientTransport(new URL(s.url ?? ''), {
      requestInit: { headers: s.headers },
      fetch: safeMcpFetch(this.opts.httpAllowHosts, this.opts.lookup),
    });
  }

  private async listTools(client: Client): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: this.spec.timeoutMs });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor && tools.length < MAX_TOOLS);
    if (tools.length > MAX_TOOLS) {
      this.logger.warn(`server lists more than ${MAX_TOOLS} tools; only the first ${MAX_TOOLS} are used`);
    }
    return tools.slice(0, MAX_TOOLS);
  }

  /** Closes `client` (if it is still the current one) and schedules a new connection. */
  private restart(client: Client, reason: string): void {
    if (this.isClosed() || (this.client !== undefined && this.client !== client)) {
      return; // an old client closing, or we are shutting down
    }
    if (this.client === undefined && this.state !== 'connecting') {
      return; // already restarting
    }
    this.client = undefined;
    this.lastError = reason;
    this.logger.warn({ msg: 'MCP server connection restarts', server: this.spec.name, reason });
    void client.close().catch(() => undefined);
    const delay = Math.min(this.opts.maxBackoffMs, (this.opts.baseBackoffMs ?? 500) * 2 ** this.failures);
    this.failures++;
    this.restarts++;
    this.state = 'waiting';
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => void this.connect(), delay);
    this.retryTimer.unref();
  }

  private readyClient(timeoutMs: number, signal: AbortSignal): Promise<Client> {
    signal.throwIfAborted();
    if (this.state === 'ready' && this.client) {
      return Promise.resolve(this.client);
    }
    return new Promise<Client>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.waiters.delete(check);
      };
      const unavailable = () =>
        new McpCallError(
          'mcp_unavailable',
          `MCP server ${this.spec.name} is not available${this.lastError ? `: ${this.lastError}` : ''}`,
        );
      const check = () => {
        if (this.state === 'ready' && this.client) {
          done();
          resolve(this.client);
        } else if (this.state === 'closed' || this.state === 'refused') {
          done();
          reject(unavailable());
        }
      };
      const onAbort = () => {
        done();
        reject(signal.reason);
      };
      const timer = setTimeout(() => {
        done();
        reject(unavailable());
      }, timeoutMs);
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.add(check);
      check();
    });
  }

  private wake(): void {
    for (const check of [...this.waiters]) {
      check();
    }
  }

  private isClosed(): boolean {
    return this.state === 'closed';
  }

  private stderrHint(): string {
    const tail = this.stderrTail.trim().split('\n').slice(-3).join(' | ');
    return tail ? ` (stderr: ${tail.slice(-500)})` : '';
  }
}
