import { Inject, Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { DataSource } from 'typeorm';
import { type Db, kyselyOf } from '@switchyard/persistence';
import type { CollectionEntry } from './planner-context';

/** What the planner reads of a tenant's knowledge collections. */
@Injectable()
export class CollectionsRepository {
  private readonly db: Db;

  constructor(@Inject(DataSource) ds: DataSource) {
    this.db = kyselyOf(ds);
  }

  /** The tenant's first `limit` collections, newest first, with their document counts. */
  async newestOf(tenantId: string, limit: number): Promise<CollectionEntry[]> {
    return this.db
      .selectFrom('collections as c')
      .select([
        sql<string>`c.id::text`.as('id'),
        'c.name',
        sql<number>`(SELECT count(*) FROM documents d WHERE d.collection_id = c.id)::int`.as('documents'),
      ])
      .where('c.tenant_id', '=', tenantId)
      .orderBy('c.created_at', 'desc')
      .orderBy('c.id')
      .limit(limit)
      .execute();
  }
}
