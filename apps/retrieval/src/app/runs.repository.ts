import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/**
 * What memory reads of a run: its `metadata` (whose `user_id` names the user a turn is
 * remembered for). Not on the task, which carries the tenant but not the run's metadata; read
 * within the task's tenant only.
 */
@Injectable()
export class RunsRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  /** The run's metadata; undefined when the tenant has no such run. */
  async metadataOf(runId: string, tenantId: string): Promise<{ metadata: unknown } | undefined> {
    const [row] = (await this.ds.query('SELECT metadata FROM runs WHERE id = $1 AND tenant_id = $2', [
      runId,
      tenantId,
    ])) as { metadata: unknown }[];
    return row;
  }
}
