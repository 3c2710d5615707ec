import { Inject, Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import { type Db, kyselyOf } from '@switchyard/persistence';

/** What the output node reads beside the state: the run's pinned agent settings and the thread's title. */
export interface RunOutputContext {
  /** `AgentConfig.output_tools` the run pinned; undefined = every output tool. */
  allowedTools: string[] | undefined;
  /** The thread's title, once its first answer named it. */
  threadTitle: string | null;
  /** The run's user (`metadata.user_id`): its turn is archived into the user's memory. */
  userId: string | null;
}

const RowSchema = z.object({
  output_tools: z.array(z.string()).nullable(),
  title: z.string().nullable(),
  user_id: z.string().nullable(),
});

/**
 * Reads the run and thread facts output needs. They stay reads (the task carries the tenant, not
 * these): the pinned agent configuration is the run's, and the title changes with the thread.
 * Within the task's tenant only.
 */
@Injectable()
export class RunOutputContextRepository {
  private readonly db: Db;

  constructor(@Inject(DataSource) ds: DataSource) {
    this.db = kyselyOf(ds);
  }

  async forRun(runId: string, tenantId: string): Promise<RunOutputContext> {
    const row = await this.db
      .selectFrom('runs as r')
      .innerJoin('threads as t', 't.id', 'r.thread_id')
      .select([
        sql<unknown>`r.agent_config->'output_tools'`.as('output_tools'),
        't.title',
        sql<unknown>`CASE WHEN jsonb_typeof(r.metadata->'user_id') = 'string' THEN r.metadata->>'user_id' END`.as(
          'user_id',
        ),
      ])
      .where('r.id', '=', runId)
      .where('r.tenant_id', '=', tenantId)
      .executeTakeFirst();
    if (!row) {
      throw new Error(`run ${runId} not found in its task's tenant: its output settings cannot be read`);
    }
    const parsed = RowSchema.safeParse(row);
    if (!parsed.success) {
      throw new Error(`run ${runId}: agent_config.output_tools is not a list of tool names`);
    }
    return {
      allowedTools: parsed.data.output_tools ?? undefined,
      threadTitle: parsed.data.title,
      userId: parsed.data.user_id || null,
    };
  }
}
