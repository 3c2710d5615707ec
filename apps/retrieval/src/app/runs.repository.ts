import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type Db, kyselyOf } from '@switchyard/persistence';

/**
 * What memory reads of a run: its `metadata` (whose `user_id` names the user a turn is
 * remembered for). Not on the task, which carries the tenant but not the run's metadata; read
 * within the task's tenant only.
 */
@Injectable()
export class RunsRepository {
  private readonly db: Db;

  constructor(@Inject(DataSource) ds: DataSource) {
    this.db = kyselyOf(ds);
  }

  /** The run's metadata; undefined when the tenant has no such run. */
  async metadataOf(runId: string, tenantId: string): Promise<{ metadata: unknown } | undefined> {
    return this.db
      .selectFrom('runs')
      .select('metadata')
      .where('id', '=', runId)
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
  }
}
