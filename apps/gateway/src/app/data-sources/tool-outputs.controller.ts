import { Controller, Get, Inject, Param, UseGuards } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import { TOOL_OUTPUT_REF_PREFIX } from '@switchyard/contracts';
import { ApiKeyGuard, Tenant, type TenantContext } from '../auth/api-key.guard';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { ApiException } from '../http/api.exception';
import { ZodPipe } from '../http/zod-body.pipe';
import { RunIdSchema } from '../runs/run.dto';

// `tool-output:<uuid>` as the action carries it, or the bare uuid.
const RefSchema = z
  .string()
  .transform((v) => (v.startsWith(TOOL_OUTPUT_REF_PREFIX) ? v.slice(TOOL_OUTPUT_REF_PREFIX.length) : v))
  .pipe(z.string().uuid({ message: `must be ${TOOL_OUTPUT_REF_PREFIX}<uuid>` }));

interface ToolOutputRow {
  id: string;
  run_id: string;
  tool: string;
  bytes: number;
  created_at: Date;
  content: unknown;
}

/** The full output of a tool result that was truncated in its action (the result's `reference`). */
@Controller('v1/runs')
@UseGuards(ApiKeyGuard, RateLimitGuard)
export class ToolOutputsController {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  @Get(':run_id/tool-outputs/:ref')
  async get(
    @Tenant() tenant: TenantContext,
    @Param('run_id', new ZodPipe(RunIdSchema)) runId: string,
    @Param('ref', new ZodPipe(RefSchema)) id: string,
  ) {
    // Another tenant's run, or an output of another run, is simply not found.
    const [row] = (await this.ds.query(
      `SELECT o.id, o.run_id, o.tool, o.bytes, o.created_at, o.content
         FROM tool_outputs o JOIN runs r ON r.id = o.run_id
        WHERE o.id = $1 AND o.run_id = $2 AND r.tenant_id = $3`,
      [id, runId, tenant.tenantId],
    )) as ToolOutputRow[];
    if (!row) {
      throw ApiException.notFound('tool output');
    }
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
