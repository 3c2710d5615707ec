import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/**
 * What the planner reads of a run, always within the task's tenant (the only tenant a node acts
 * for): what the run pinned when it was created — its agent configuration and its input — and its
 * user's profile. The task carries the tenant, not these: they are large (a graph agent's DSL) or
 * the run's own (`metadata.user_id`), so they stay reads.
 */
@Injectable()
export class RunsRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  /** The run's pinned agent configuration (null: pinned none); undefined when the tenant has no such run. */
  async agentConfigOf(runId: string, tenantId: string): Promise<{ agent_config: unknown } | undefined> {
    const [row] = (await this.ds.query('SELECT agent_config FROM runs WHERE id = $1 AND tenant_id = $2', [
      runId,
      tenantId,
    ])) as { agent_config: unknown }[];
    return row;
  }

  /** The inputs of Begin's form the run was started with, as `runInputsOf` (libs/graph) reads them. */
  async graphInputsOf(
    runId: string,
    tenantId: string,
  ): Promise<{ inputs: unknown; inputs_json: string | null } | undefined> {
    const [row] = (await this.ds.query(
      `SELECT input->'inputs' AS inputs, input->>'inputs_json' AS inputs_json
       FROM runs WHERE id = $1 AND tenant_id = $2`,
      [runId, tenantId],
    )) as { inputs: unknown; inputs_json: string | null }[];
    return row;
  }

  /**
   * The run's user (`metadata.user_id`) and that user's stored profile in the same tenant (a
   * profile of the same id in another tenant is never read).
   */
  async userProfileOf(
    runId: string,
    tenantId: string,
  ): Promise<{ user_id: string | null; profile: unknown } | undefined> {
    const [row] = (await this.ds.query(
      `SELECT r.metadata->>'user_id' AS user_id, p.profile
       FROM runs r
       LEFT JOIN user_profiles p ON p.tenant_id = r.tenant_id AND p.user_id = r.metadata->>'user_id'
       WHERE r.id = $1 AND r.tenant_id = $2`,
      [runId, tenantId],
    )) as { user_id: string | null; profile: unknown }[];
    return row;
  }
}
