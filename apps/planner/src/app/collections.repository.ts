import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { CollectionEntry } from './planner-context';

/** What the planner reads of a tenant's knowledge collections. */
@Injectable()
export class CollectionsRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  /** The tenant's first `limit` collections, newest first, with their document counts. */
  async newestOf(tenantId: string, limit: number): Promise<CollectionEntry[]> {
    return (await this.ds.query(
      `SELECT c.id::text AS id, c.name, (SELECT count(*) FROM documents d WHERE d.collection_id = c.id)::int AS documents
       FROM collections c WHERE c.tenant_id = $1 ORDER BY c.created_at DESC, c.id LIMIT $2`,
      [tenantId, limit],
    )) as CollectionEntry[];
  }
}
