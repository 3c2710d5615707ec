import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { DataSource } from 'typeorm';
import { loadConfigOrExit, tenantCacheEnvSchema } from '@switchyard/config';
import type { CollectionEntry } from './planner-context';

const LIMIT = 51;

/** The knowledge collections of a tenant, newest first, with their document counts. */
@Injectable()
export class TenantCollections {
  // A planner step lists the collections only when it offers `retrieval`; a short cache keeps that
  // to one query per tenant every SWITCHYARD_TENANT_CACHE_TTL_MS (a new collection shows up within it).
  private readonly cache = new LRUCache<string, CollectionEntry[]>({
    max: 1_000,
    ttl: loadConfigOrExit(tenantCacheEnvSchema, 'planner').SWITCHYARD_TENANT_CACHE_TTL_MS,
  });

  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  async forTenant(tenantId: string | null): Promise<CollectionEntry[]> {
    if (!tenantId) {
      return [];
    }
    const cached = this.cache.get(tenantId);
    if (cached) {
      return cached;
    }
    const rows = (await this.ds.query(
      `SELECT c.id::text AS id, c.name, (SELECT count(*) FROM documents d WHERE d.collection_id = c.id)::int AS documents
       FROM collections c WHERE c.tenant_id = $1 ORDER BY c.created_at DESC, c.id LIMIT $2`,
      [tenantId, LIMIT],
    )) as CollectionEntry[];
    this.cache.set(tenantId, rows);
    return rows;
  }
}
