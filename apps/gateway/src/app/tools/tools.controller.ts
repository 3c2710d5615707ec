import { Controller, Get, Inject, UseGuards } from '@nestjs/common';
import { NodeDirectory } from '@switchyard/platform';
import { ApiKeyGuard } from '../auth/api-key.guard';
import { RateLimitGuard } from '../auth/rate-limit.guard';

/** The tool catalogue: exactly what the planner can offer, read from the node registry. */
@Controller('v1/tools')
@UseGuards(ApiKeyGuard, RateLimitGuard)
export class ToolsController {
  constructor(@Inject(NodeDirectory) private readonly directory: NodeDirectory) {}

  @Get()
  list() {
    return {
      tools: this.directory
        .list()
        .filter((n) => n.tool)
        .map((n) => ({
          name: n.name,
          description: n.description,
          input_schema: n.input_schema,
          service: n.service,
          idempotent: n.idempotent,
        })),
    };
  }
}
