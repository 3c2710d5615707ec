import { Controller, Get, Inject, Query, UseGuards } from '@nestjs/common';
import { AdminTokenGuard } from '../auth/admin-token.guard';
import { ZodPipe } from '../http/zod-body.pipe';
import { type UsagePage, type UsageQuery, UsageQuerySchema } from '@switchyard/contracts';
import { usagePageView } from './registry.views';
import { RegistryRepository } from './registry.repository';
import { decodeUsageCursor } from './usage-cursor';

/**
 * Metered model calls (admin token), oldest first, filtered by run and/or tenant, a page at a
 * time. `action_id` is the version of the delta the call served (state_deltas.task_id is unique,
 * so the join is an index lookup); null for calls outside an action (e.g. a failed attempt).
 */
@Controller('v1/admin/usage')
@UseGuards(AdminTokenGuard)
export class UsageController {
  constructor(@Inject(RegistryRepository) private readonly registry: RegistryRepository) {}

  @Get()
  async list(@Query(new ZodPipe(UsageQuerySchema)) query: UsageQuery): Promise<UsagePage> {
    const after = query.cursor ? decodeUsageCursor(query.cursor) : undefined;
    return usagePageView(await this.registry.usage(query, after, query.limit + 1), query.limit);
  }
}
