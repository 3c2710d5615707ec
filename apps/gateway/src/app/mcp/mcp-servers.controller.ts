import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, UseGuards } from '@nestjs/common';
import { SecretBox } from '@switchyard/config';
import {
  MCP_MAX_OUTPUT_BYTES,
  MCP_NODE_PREFIX,
  MCP_TIMEOUT_MS,
  isStdioCommandAllowed,
} from '@switchyard/contracts';
import { NodeDirectory } from '@switchyard/platform';
import { ApiKeyGuard, Tenant, type TenantContext } from '../auth/api-key.guard';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { ZodPipe } from '../http/zod-body.pipe';
import { McpGatewayConfig } from './mcp-gateway.config';
import { type CreateMcpServer, CreateMcpServerSchema, type McpServerView } from './mcp-servers.schemas';
import { refuseMcpUrl } from './mcp-url';
import { type McpServerRow, McpServersRepository } from './mcp-servers.repository';
import { IdSchema } from '../registry/registry.schemas';

/**
 * A tenant's MCP servers (API key). The tool-executor connects every enabled one and registers
 * its tools as nodes `mcp.<name>.<tool>`, offered to this tenant's runs only. Environment and
 * headers may hold credentials: they are sealed (SecretBox) before they reach a query and never
 * returned. A stdio server runs a command on the tool-executor's host, so only commands the
 * operator approved (`SWITCHYARD_MCP_STDIO_ALLOW`) are accepted; http URLs follow the SSRF rule
 * of the http tools.
 */
@Controller('v1/mcp-servers')
@UseGuards(ApiKeyGuard, RateLimitGuard)
export class McpServersController {
  constructor(
    @Inject(McpServersRepository) private readonly servers: McpServersRepository,
    @Inject(SecretBox) private readonly box: SecretBox,
    @Inject(McpGatewayConfig) private readonly config: McpGatewayConfig,
    @Inject(NodeDirectory) private readonly directory: NodeDirectory,
  ) {}

  @Post()
  async create(
    @Tenant() tenant: TenantContext,
    @Body(new ZodPipe(CreateMcpServerSchema)) body: CreateMcpServer,
  ): Promise<McpServerView> {
    let command: string | null = null;
    let args: string[] = [];
    let envSealed: string | null = null;
    let url: string | null = null;
    let headersSealed: string | null = null;
    if (body.transport === 'stdio') {
      command = body.command;
      args = body.args ?? [];
      if (!isStdioCommandAllowed(this.config.stdioAllow, command, args)) {
        throw new ApiException(
          ApiErrorCode.InvalidRequest,
          `stdio command ${JSON.stringify(command)} is not allowed: an operator must list it in SWITCHYARD_MCP_STDIO_ALLOW`,
        );
      }
      envSealed = body.env && Object.keys(body.env).length ? this.box.seal(JSON.stringify(body.env)) : null;
    } else {
      const refused = await refuseMcpUrl(body.url, this.config.httpAllowHosts);
      if (refused) {
        throw new ApiException(ApiErrorCode.InvalidRequest, refused);
      }
      url = body.url;
      headersSealed =
        body.headers && Object.keys(body.headers).length ? this.box.seal(JSON.stringify(body.headers)) : null;
    }
    const row = await this.servers.create(tenant.tenantId, {
      name: body.name,
      transport: body.transport,
      command,
      args,
      envSealed,
      url,
      headersSealed,
      timeoutMs: body.timeout_ms ?? MCP_TIMEOUT_MS.default,
      maxOutputBytes: body.max_output_bytes ?? MCP_MAX_OUTPUT_BYTES.default,
      enabled: body.enabled ?? true,
      toolTypes: body.tool_types ?? {},
    });
    return this.view(row);
  }

  @Get()
  async list(@Tenant() tenant: TenantContext) {
    return { servers: (await this.servers.list(tenant.tenantId)).map((r) => this.view(r)) };
  }

  @Get(':id')
  async get(@Tenant() tenant: TenantContext, @Param('id', new ZodPipe(IdSchema)) id: string) {
    return this.view(await this.servers.getOrThrow(tenant.tenantId, id));
  }

  /** The tool-executor notices within its poll interval, closes the connection and deregisters the tools. */
  @Delete(':id')
  @HttpCode(200)
  async remove(@Tenant() tenant: TenantContext, @Param('id', new ZodPipe(IdSchema)) id: string) {
    return { deleted: true, ...this.view(await this.servers.remove(tenant.tenantId, id)) };
  }

  private view(row: McpServerRow): McpServerView {
    const prefix = `${MCP_NODE_PREFIX}.${row.name}.`;
    return {
      id: row.id,
      name: row.name,
      transport: row.transport,
      command: row.command,
      args: row.args,
      env_keys: row.env_sealed ? Object.keys(JSON.parse(this.box.open(row.env_sealed)) as object) : [],
      url: row.url,
      header_names: row.headers_sealed
        ? Object.keys(JSON.parse(this.box.open(row.headers_sealed)) as object)
        : [],
      timeout_ms: row.timeout_ms,
      max_output_bytes: row.max_output_bytes,
      enabled: row.enabled,
      tool_types: row.tool_types,
      tools: this.directory
        .list()
        .filter((n) => n.name.startsWith(prefix))
        .map((n) => n.name),
      created_at: new Date(row.created_at).toISOString(),
      updated_at: new Date(row.updated_at).toISOString(),
    };
  }
}
