import { Controller, Get, Inject, Query, UseGuards } from '@nestjs/common';
import { AdminTokenGuard } from '../auth/admin-token.guard';
import { ZodPipe } from '../http/zod-body.pipe';
import { type UsageQuery, UsageQuerySchema } from './registry.schemas';
import { usageView } from './registry.views';
import { RegistryRepository } from './registry.repository';
import { decodeUsageCursor, encodeUsageCursor } from './usage-cursor';

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
  async list(@Query(new ZodPipe(UsageQuerySchema)) query: UsageQuery) {
    const after = query.cursor ? decodeUsageCursor(query.cursor) : undefined;
    const rows = await this.registry.usage(query, after, query.limit + 1);
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    return {
      usage: page.map(usageView),
      next_cursor:
        rows.length > query.limit && last
          ? encodeUsageCursor({ created_at: last.created_at_text, id: last.id })
          : null,
    };
  }
}
