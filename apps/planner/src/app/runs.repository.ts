import { Inject, Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { DataSource } from 'typeorm';
import { type Db, kyselyOf } from '@switchyard/persistence';

/**
 * What the planner reads of a run, always within the task's tenant (the only tenant a node acts
 * for): what the run pinned when it was created — its agent configuration and its input — and its
 * user's profile. The task carries the tenant, not these: they are large (a graph agent's DSL) or
 * the run's own (`metadata.user_id`), so they stay reads.
 */
@Injectable()
export class RunsRepository {
  private readonly db: Db;

  constructor(@Inject(DataSource) ds: DataSource) {
    this.db = kyselyOf(ds);
  }

  /** The run's pinned agent configuration (null: pinned none); undefined when the tenant has no such run. */
  async agentConfigOf(runId: string, tenantId: string): Promise<{ agent_config: unknown } | undefined> {
    return this.db
      .selectFrom('runs')
      .select('agent_config')
      .where('id', '=', runId)
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
  }

  /** The inputs of Begin's form the run was started with, as `runInputsOf` (libs/graph) reads them. */
  async graphInputsOf(
    runId: string,
    tenantId: string,
  ): Promise<{ inputs: unknown; inputs_json: string | null } | undefined> {
    return this.db
      .selectFrom('runs')
      .select([
        sql<unknown>`input->'inputs'`.as('inputs'),
        sql<string | null>`input->>'inputs_json'`.as('inputs_json'),
      ])
      .where('id', '=', runId)
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
  }

  /**
   * The run's user (`metadata.user_id`) and that user's stored profile in the same tenant (a
   * profile of the same id in another tenant is never read).
   */
  async userProfileOf(
    runId: string,
    tenantId: string,
  ): Promise<{ user_id: string | null; profile: unknown } | undefined> {
    const userId = sql<string | null>`r.metadata->>'user_id'`;
    return this.db
      .selectFrom('runs as r')
      .leftJoin('user_profiles as p', (j) =>
        j.onRef('p.tenant_id', '=', 'r.tenant_id').on('p.user_id', '=', userId),
      )
      .select([userId.as('user_id'), 'p.profile'])
      .where('r.id', '=', runId)
      .where('r.tenant_id', '=', tenantId)
      .executeTakeFirst();
  }
}
