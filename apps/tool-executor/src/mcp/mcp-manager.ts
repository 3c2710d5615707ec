import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { KV, Subscription } from 'nats';
import { z } from 'zod';
import { SecretBox } from '@switchyard/config';
import {
  MCP_CALL_SUBJECT,
  MCP_NODE_PREFIX,
  type McpCallReply,
  McpCallRequestSchema,
  NODE_REGISTRY_BUCKET,
  type NodeRegistration,
  type RunErrorCode,
} from '@switchyard/contracts';
import { JetStreamConnection, encodeJson } from '@switchyard/jetstream';
import { TenantWeights } from '@switchyard/platform';
import { type NodeInput, type NodeOutput, toolArgs } from '@switchyard/worker';
import { type RequestBody, requestOf, serveRequests } from '../app/serve-requests';
import { McpConfig } from './mcp.config';
import { McpConnection, type McpServerSpec } from './mcp-connection';
import { McpCallError } from './mcp-errors';
import { mcpNodeNames } from './tool-names';
import { capToolOutput, resultText } from './tool-output';
import { type EnabledMcpServer, McpServersRepository } from './mcp-servers.repository';

const SERVICE = 'tool-executor';
const NEXT = ['reflection'];
// Registrations are written again this often, like the decorated nodes' (a KV that lost them heals).
const REFRESH_MS = 30_000;
const MAX_DESCRIPTION = 2000;

interface Served {
  conn: McpConnection;
  /** node name → the server's tool name, and the registration written for it. */
  nodes: Map<string, { tool: string; reg: NodeRegistration }>;
}

const AnyArgs = z.record(z.string(), z.unknown());

/**
 * Connects the tenants' enabled MCP servers (the `mcp_servers` table, read every
 * SWITCHYARD_MCP_POLL_MS) and serves their tools as nodes `mcp.<server>.<tool>`: registered in
 * `sy_nodes` with the owning tenant, executed through the server's connection. A removed or
 * disabled server is disconnected and its nodes deregistered; every replica derives the same
 * names, and stale `mcp.*` registrations of servers no longer in the table are deleted by
 * whichever replica sees them first.
 */
@Injectable()
export class McpManager implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(McpManager.name);
  private readonly served = new Map<string, Served>();
  private readonly byNode = new Map<string, { serverId: string; tool: string }>();
  private readonly box: SecretBox;
  private kv?: KV;
  private rpc?: Subscription;
  private timer?: NodeJS.Timeout;
  private syncing?: Promise<void>;
  private lastRefresh = Date.now();
  // The enabled servers' names at the last stale-key sweep (null: never swept).
  private lastNames: string | null = null;

  constructor(
    @Inject(McpServersRepository) private readonly servers: McpServersRepository,
    @Inject(JetStreamConnection) private readonly nats: JetStreamConnection,
    @Inject(McpConfig) private readonly config: McpConfig,
    @Inject(TenantWeights) private readonly weights: TenantWeights,
  ) {
    this.box = new SecretBox(config.secretKey);
  }

  async onApplicationBootstrap(): Promise<void> {
    this.kv = await this.nats.kv(NODE_REGISTRY_BUCKET);
    await this.sync();
    this.serveCalls();
    this.timer = setInterval(() => void this.sync(), this.config.pollMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    this.rpc?.unsubscribe();
    await this.syncing;
    // Other replicas still serve these nodes: shutting down closes connections, it deregisters nothing.
    await Promise.all([...this.served.values()].map((s) => s.conn.close()));
    this.served.clear();
    this.byNode.clear();
  }

  /** The connection of a server, by name (tests and diagnostics). */
  connection(name: string): McpConnection | undefined {
    return [...this.served.values()].find((s) => s.conn.spec.name === name)?.conn;
  }

  /** Reads the table once and brings connections and registrations in line with it. */
  sync(): Promise<void> {
    this.syncing ??= this.syncOnce()
      .catch((err: Error) => this.logger.warn(`MCP server sync failed: ${err.message}`))
      .finally(() => (this.syncing = undefined));
    return this.syncing;
  }

  /**
   * Whether a call of `node` may run twice: the server marked the tool read-only or idempotent.
   * A tool not known (yet) here counts as unsafe, so its call gets a receipt.
   */
  isIdempotent(node: string): boolean {
    const found = this.byNode.get(node);
    return found ? this.served.get(found.serverId)?.nodes.get(node)?.reg.idempotent === true : false;
  }

  /**
   * Executes a task of an `mcp.*` node for `tenantId`, the task's (taskTenant): the only tenant
   * whose server the call may reach.
   */
  async call({ task, state, signal }: NodeInput, tenantId: string): Promise<NodeOutput> {
    const args = toolArgs(state, task, AnyArgs);
    const { spec, found, result } = await this.callTool(tenantId, task.node, args, signal);
    const out = capToolOutput(result, spec.maxOutputBytes);
    const texts = out.content.flatMap((b) =>
      b.type === 'text' ? [b.text] : b.type === 'resource' && b.text !== undefined ? [b.text] : [],
    );
    return {
      preparation: `Called tool "${found.tool}" of MCP server ${spec.name} (${spec.transport}).`,
      summary:
        `${task.node} returned ${out.content.length} content block(s), ${out.bytes} bytes` +
        `${out.truncated ? `, capped at ${spec.maxOutputBytes}` : ''} (untrusted data)`,
      result: {
        untrusted: true,
        server: spec.name,
        tool: found.tool,
        content: out.content,
        ...(out.structured_content !== undefined ? { structured_content: out.structured_content } : {}),
        truncated: out.truncated,
        bytes: out.bytes,
      },
      // Marked as data from a third party: reflection and output must not follow instructions in it.
      context: texts.map((text) => ({
        type: 'data' as const,
        content: { untrusted: true, source: task.node, text },
        important: false,
        usage_type: 'reference' as const,
      })),
      next: NEXT,
    };
  }

  /** Calls node's tool for a run of the server's tenant; a tool's own error is an McpCallError. */
  private async callTool(tenantId: string, node: string, args: Record<string, unknown>, signal: AbortSignal) {
    let found = this.byNode.get(node);
    if (!found) {
      // Another replica registered the node while this one is still connecting: wait for the list.
      const pending = this.connection(node.split('.')[1] ?? '');
      if (pending) {
        // Not connecting within the server's timeout is mcp_unavailable, like a call.
        await pending.ready(pending.spec.timeoutMs, signal);
        found = this.byNode.get(node);
      }
    }
    const served = found && this.served.get(found.serverId);
    if (!found || !served) {
      throw new McpCallError(
        'mcp_unknown_tool',
        `${node} is not a tool of a connected MCP server (the server was removed, disabled, or has not connected yet)`,
      );
    }
    const spec = served.conn.spec;
    this.checkTenant(tenantId, spec);
    const result = await served.conn.call(found.tool, args, signal);
    if (result.isError) {
      throw new McpCallError(
        'mcp_tool_error',
        `MCP tool ${found.tool} of ${spec.name} failed: ${resultText(result, 2000) || '(no message)'}`,
      );
    }
    return { spec, found, result };
  }

  /**
   * Answers MCP_CALL_SUBJECT requests (a graph Agent's MCP tool, from the planner): the same call
   * as a node task's, under the same tenant check, its result as text capped at the server's
   * max_output_bytes. One tool-executor of the queue group answers each request.
   */
  private serveCalls(): void {
    this.rpc = serveRequests(
      this.nats.nc,
      MCP_CALL_SUBJECT,
      (body) => this.answer(body),
      this.logger,
      this.weights,
    );
  }

  private async answer(body: RequestBody): Promise<McpCallReply> {
    const parsed = requestOf(body, McpCallRequestSchema);
    if (!('req' in parsed)) {
      return { ok: false, code: 'mcp_bad_request' satisfies RunErrorCode, message: parsed.message };
    }
    const { req } = parsed;
    if (!req.tenant_id) {
      // Every planner since tenant_id was added sends it: a request without one acts for no tenant.
      return {
        ok: false,
        code: 'mcp_bad_request',
        message: `run ${req.run_id}: the request names no tenant`,
      };
    }
    try {
      const { spec, result } = await this.callTool(
        req.tenant_id,
        req.node,
        req.args,
        AbortSignal.timeout(req.timeout_ms),
      );
      // Capped as a node task's output is; the text blocks are the tool message.
      const out = capToolOutput(result, spec.maxOutputBytes);
      return { ok: true, text: resultText(out, spec.maxOutputBytes), truncated: out.truncated };
    } catch (err) {
      const e = err as Error & { code?: string };
      return {
        ok: false,
        code: typeof e.code === 'string' ? e.code : ('mcp_error' satisfies RunErrorCode),
        message: e.message,
      };
    }
  }

  // The planner offers a tenant's tools to its own runs only; this holds even if a run names
  // another tenant's node some other way. The task (or request) names the run's tenant: the only
  // tenant the call is made for (a task without one fails before, see taskTenant).
  private checkTenant(tenantId: string, spec: McpServerSpec): void {
    if (tenantId !== spec.tenantId) {
      throw new McpCallError('mcp_forbidden', `MCP server ${spec.name} belongs to another tenant`);
    }
  }

  private async syncOnce(): Promise<void> {
    const rows = await this.servers.enabled();
    const wanted = new Map<string, McpServerSpec>();
    for (const row of rows) {
      const spec = this.toSpec(row);
      if (spec) {
        wanted.set(row.id, spec);
      }
    }
    // A changed server reconnects; its old nodes are kept so the new tool list replaces them.
    const previous = new Map<string, Served['nodes']>();
    for (const [id, served] of this.served) {
      const spec = wanted.get(id);
      if (!spec || spec.version !== served.conn.spec.version) {
        this.logger.log({
          msg: spec ? 'MCP server changed' : 'MCP server removed',
          server: served.conn.spec.name,
        });
        this.served.delete(id);
        await served.conn.close();
        const renamed = !spec || spec.name !== served.conn.spec.name;
        await this.deregister(served, !renamed);
        if (!renamed) {
          previous.set(id, served.nodes);
        }
      }
    }
    for (const [id, spec] of wanted) {
      if (!this.served.has(id)) {
        const served: Served = {
          conn: undefined as unknown as McpConnection,
          nodes: previous.get(id) ?? new Map(),
        };
        served.conn = new McpConnection(spec, {
          stdioAllow: this.config.stdioAllow,
          httpAllowHosts: this.config.httpAllowHosts,
          lookup: this.config.lookup,
          maxBackoffMs: this.config.maxBackoffMs,
          onTools: (tools) => {
            if (this.served.get(id) === served) {
              void this.register(id, served, tools);
            }
          },
        });
        this.served.set(id, served);
        served.conn.start();
      }
    }
    const names = [...wanted.values()].map((s) => s.name).sort();
    if (names.join(',') !== this.lastNames || Date.now() - this.lastRefresh > REFRESH_MS) {
      await this.removeStale(new Set(names));
      this.lastNames = names.join(',');
    }
    if (Date.now() - this.lastRefresh > REFRESH_MS) {
      this.lastRefresh = Date.now();
      for (const served of this.served.values()) {
        for (const { reg } of served.nodes.values()) {
          await this.kv?.put(reg.name, encodeJson({ ...reg, registered_at: new Date().toISOString() }));
        }
      }
    }
  }

  private toSpec(row: EnabledMcpServer): McpServerSpec | undefined {
    try {
      return {
        id: row.id,
        tenantId: row.tenant_id,
        name: row.name,
        transport: row.transport,
        command: row.command,
        args: row.args ?? [],
        env: row.env_sealed ? (JSON.parse(this.box.open(row.env_sealed)) as Record<string, string>) : {},
        url: row.url,
        headers: row.headers_sealed
          ? (JSON.parse(this.box.open(row.headers_sealed)) as Record<string, string>)
          : {},
        timeoutMs: row.timeout_ms,
        maxOutputBytes: row.max_output_bytes,
        toolTypes: row.tool_types ?? {},
        version: new Date(row.updated_at).toISOString(),
      };
    } catch (err) {
      this.logger.error(`MCP server ${row.name} skipped: ${(err as Error).message}`);
      return undefined;
    }
  }

  private async register(serverId: string, served: Served, tools: Tool[]): Promise<void> {
    const spec = served.conn.spec;
    const names = mcpNodeNames(
      spec.name,
      tools.map((t) => t.name),
    );
    const byTool = new Map(tools.map((t) => [t.name, t]));
    const now = new Date().toISOString();
    const next = new Map<string, { tool: string; reg: NodeRegistration }>();
    for (const [node, toolName] of names) {
      const tool = byTool.get(toolName) as Tool;
      const { $schema: _dialect, ...inputSchema } = tool.inputSchema as Record<string, unknown>;
      const hints = tool.annotations ?? {};
      const reg: NodeRegistration = {
        name: node,
        service: SERVICE,
        kind: 'service',
        tool: true,
        description: `[MCP ${spec.name}] ${tool.description ?? tool.title ?? tool.name}`.slice(
          0,
          MAX_DESCRIPTION,
        ),
        input_schema: inputSchema,
        idempotent: hints.readOnlyHint === true || hints.idempotentHint === true,
        types: Object.hasOwn(spec.toolTypes, toolName) ? spec.toolTypes[toolName] : ['call'],
        registered_at: now,
        tenant_id: spec.tenantId,
      };
      next.set(node, { tool: toolName, reg });
    }
    const gone = [...served.nodes.keys()].filter((n) => !next.has(n));
    served.nodes = next;
    for (const n of gone) {
      this.byNode.delete(n);
    }
    for (const [node, { tool }] of next) {
      this.byNode.set(node, { serverId, tool });
    }
    try {
      for (const { reg } of next.values()) {
        await this.kv?.put(reg.name, encodeJson(reg));
      }
      for (const n of gone) {
        await this.kv?.delete(n);
      }
      this.logger.log({ msg: 'MCP tools registered', server: spec.name, nodes: [...next.keys()] });
    } catch (err) {
      this.logger.warn(`registering the tools of ${spec.name} failed: ${(err as Error).message}`);
    }
  }

  /** Drops a server's nodes; `keepKeys` (a changed server that reconnects) leaves them to be replaced. */
  private async deregister(served: Served, keepKeys: boolean): Promise<void> {
    if (keepKeys) {
      return; // calls meanwhile wait for the new connection (same server id)
    }
    for (const node of served.nodes.keys()) {
      this.byNode.delete(node);
      await this.kv?.delete(node).catch(() => undefined);
    }
  }

  /** `mcp.<server>.*` registrations whose server is not (or no longer) enabled in the table. */
  private async removeStale(names: Set<string>): Promise<void> {
    const kv = this.kv;
    if (!kv) {
      return;
    }
    const stale: string[] = [];
    for await (const key of await kv.keys(`${MCP_NODE_PREFIX}.>`)) {
      if (!names.has(key.split('.')[1])) {
        stale.push(key);
      }
    }
    for (const key of stale) {
      await kv.delete(key);
    }
    if (stale.length) {
      this.logger.log({ msg: 'stale MCP nodes deregistered', nodes: stale });
    }
  }
}
