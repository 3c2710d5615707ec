import { Controller, Get, Inject, Param, UseGuards } from '@nestjs/common';
import { z } from 'zod';
import { TOOL_OUTPUT_REF_PREFIX } from '@switchyard/contracts';
import { ApiKeyGuard, Tenant, type TenantContext } from '../auth/api-key.guard';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { ZodPipe } from '../http/zod-body.pipe';
import { RunIdSchema } from '../runs/run.dto';
import { DataSourcesRepository } from './data-sources.repository';

// `tool-output:<uuid>` as the action carries it, or the bare uuid.
const RefSchema = z
  .string()
  .transform((v) => (v.startsWith(TOOL_OUTPUT_REF_PREFIX) ? v.slice(TOOL_OUTPUT_REF_PREFIX.length) : v))
  .pipe(z.string().uuid({ message: `must be ${TOOL_OUTPUT_REF_PREFIX}<uuid>` }));

/** The full output of a tool result that was truncated in its action (the result's `reference`). */
@Controller('v1/runs')
@UseGuards(ApiKeyGuard, RateLimitGuard)
export class ToolOutputsController {
  constructor(@Inject(DataSourcesRepository) private readonly sources: DataSourcesRepository) {}

  @Get(':run_id/tool-outputs/:ref')
  async get(
    @Tenant() tenant: TenantContext,
    @Param('run_id', new ZodPipe(RunIdSchema)) runId: string,
    @Param('ref', new ZodPipe(RefSchema)) id: string,
  ) {
    const row = await this.sources.toolOutput(tenant.tenantId, runId, id);
    return {
      id: row.id,
      reference: `${TOOL_OUTPUT_REF_PREFIX}${row.id}`,
      run_id: row.run_id,
      tool: row.tool,
      bytes: row.bytes,
      created_at: new Date(row.created_at).toISOString(),
      content: row.content,
    };
  }
}
