import { Controller, Get, Inject, Query, UseGuards } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AdminTokenGuard } from '../admin/admin-token.guard';
import { ApiException } from '../http/api.exception';
import { ZodPipe } from '../http/zod-body.pipe';
import { type UsageQuery, UsageQuerySchema } from './registry.schemas';
import { type UsageRow, usageView } from './registry.views';
import { USAGE_CURSOR_TIME, decodeUsageCursor, encodeUsageCursor } from './usage-cursor';

/**
 * Metered model calls (admin token), oldest first, filtered by run and/or tenant, a page at a
 * time. `action_id` is the version of the delta the call served (state_deltas.task_id is unique,
 * so the join is an index lookup); null for calls outside an action (e.g. a failed attempt).
 */
@Controller('v1/admin/usage')
@UseGuards(AdminTokenGuard)
export class UsageController {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  @Get()
  async list(@Query(new ZodPipe(UsageQuerySchema)) query: UsageQuery) {
    if (query.tenant_id) {
      await this.exists('tenants', query.tenant_id, 'tenant');
    }
    if (query.run_id) {
      await this.exists('runs', query.run_id, 'run');
    }
    const after = query.cursor ? decodeUsageCursor(query.cursor) : undefined;
    const rows = (await this.ds.query(
      `SELECT u.id::text AS id, u.tenant_id, u.business_id, u.run_id, d.version AS action_id, u.model_id, u.key_id, u.node,
              u.prompt_tokens, u.completion_tokens, u.total_tokens, u.cost, u.created_at,
              ${USAGE_CURSOR_TIME} AS created_at_text
       FROM model_usage u
       LEFT JOIN state_deltas d ON d.task_id = u.task_id
       WHERE ($1::uuid IS NULL OR u.run_id = $1)
         AND ($2::uuid IS NULL OR u.tenant_id = $2)
         AND ($3::timestamptz IS NULL OR (u.created_at, u.id) > ($3::timestamptz, $4::bigint))
         AND ($6::text IS NULL OR u.business_id = $6)
       ORDER BY u.created_at, u.id
       LIMIT $5`,
      [
        query.run_id ?? null,
        query.tenant_id ?? null,
        after?.created_at ?? null,
        after?.id ?? null,
        query.limit + 1,
        query.business_id ?? null,
      ],
    )) as UsageRow[];
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

  private async exists(table: 'tenants' | 'runs', id: string, what: string): Promise<void> {
    const rows = (await this.ds.query(`SELECT 1 FROM ${table} WHERE id = $1`, [id])) as unknown[];
    if (rows.length === 0) {
      throw ApiException.notFound(what);
    }
  }
}
