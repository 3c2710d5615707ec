import { Body, Controller, HttpCode, Inject, Param, Patch, Post, UseGuards } from '@nestjs/common';
import { isUuid } from '@switchyard/contracts';
import { ApiKeyGuard, Tenant, type TenantContext } from '../auth/api-key.guard';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { RunsService } from '../runs/runs.service';
import { RagflowCode, RagflowException } from './ragflow.dto';

/**
 * RAGFlow's task cancel (`POST /api/v1/tasks/{task_id}/cancel`, `PATCH /api/v1/tasks/{task_id}`
 * `{action: "stop"}`): a completion's `task_id` is its run, which is cancelled (its stream ends
 * with `workflow_finished` "Task has been canceled"). A run already over is stopped already
 * (`data: true`, as RAGFlow answers); a task that is not one of the tenant's runs is not found.
 */
@Controller('api/v1/tasks')
@UseGuards(ApiKeyGuard, RateLimitGuard)
export class RagflowTasksController {
  constructor(@Inject(RunsService) private readonly runs: RunsService) {}

  @Post(':task_id/cancel')
  @HttpCode(200)
  async cancel(@Tenant() tenant: TenantContext, @Param('task_id') taskId: string) {
    return this.stop(tenant.tenantId, taskId);
  }

  @Patch(':task_id')
  async patch(@Tenant() tenant: TenantContext, @Param('task_id') taskId: string, @Body() body: unknown) {
    const action = (body as { action?: unknown } | null)?.action;
    if (action !== 'stop') {
      throw new RagflowException(
        RagflowCode.ArgumentError,
        `Invalid action '${String(action)}'. Only 'stop' is supported.`,
      );
    }
    return this.stop(tenant.tenantId, taskId);
  }

  private async stop(tenantId: string, taskId: string) {
    if (!isUuid(taskId)) {
      throw new RagflowException(RagflowCode.DataError, `Task ${taskId} not found.`);
    }
    try {
      await this.runs.cancel(tenantId, taskId);
    } catch (err) {
      if (err instanceof ApiException && err.code === ApiErrorCode.RunFinished) {
        return { code: RagflowCode.Success, message: 'success', data: true };
      }
      if (err instanceof ApiException && err.code === ApiErrorCode.NotFound) {
        throw new RagflowException(RagflowCode.DataError, `Task ${taskId} not found.`);
      }
      throw err;
    }
    return { code: RagflowCode.Success, message: 'success', data: true };
  }
}
