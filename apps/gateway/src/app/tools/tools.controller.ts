import { Controller, Get, Inject, UseGuards } from '@nestjs/common';
import { toolTypesOf } from '@switchyard/contracts';
import { NodeDirectory } from '@switchyard/platform';
import { ApiKeyGuard, Tenant, type TenantContext } from '../auth/api-key.guard';
import { RateLimitGuard } from '../auth/rate-limit.guard';

/**
 * The tool catalogue: exactly what the planner can offer, read from the node registry. A tool
 * registered for a tenant (an MCP server's tool) is listed to that tenant only.
 */
@Controller('v1/tools')
@UseGuards(ApiKeyGuard, RateLimitGuard)
export class ToolsController {
  constructor(@Inject(NodeDirectory) private readonly directory: NodeDirectory) {}

  @Get()
  list(@Tenant() tenant: TenantContext) {
    return {
      tools: this.directory
        .list()
        .filter((n) => n.tool && (n.tenant_id === undefined || n.tenant_id === tenant.tenantId))
        .map((n) => ({
          name: n.name,
          description: n.description,
          input_schema: n.input_schema,
          service: n.service,
          idempotent: n.idempotent,
          // Seed 003's types: `call` tools are offered during the work, `output` tools present the answer.
          types: toolTypesOf(n),
        })),
    };
  }
}
