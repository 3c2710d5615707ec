import { Controller, Get, Inject, UseGuards } from '@nestjs/common';
import type { ToolList } from '@switchyard/contracts';
import { NodeDirectory } from '@switchyard/platform';
import { ApiKeyGuard, Tenant, type TenantContext } from '../auth/api-key.guard';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { toolListView } from './tools.views';

/**
 * The tool catalogue: exactly what the planner can offer, read from the node registry. A tool
 * registered for a tenant (an MCP server's tool) is listed to that tenant only.
 */
@Controller('v1/tools')
@UseGuards(ApiKeyGuard, RateLimitGuard)
export class ToolsController {
  constructor(@Inject(NodeDirectory) private readonly directory: NodeDirectory) {}

  @Get()
  list(@Tenant() tenant: TenantContext): ToolList {
    return toolListView(this.directory.list(), tenant.tenantId);
  }
}
