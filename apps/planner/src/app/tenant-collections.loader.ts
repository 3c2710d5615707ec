import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { loadConfigOrExit, tenantCacheEnvSchema } from '@switchyard/config';
import { CollectionsRepository } from './collections.repository';
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

  constructor(@Inject(CollectionsRepository) private readonly collections: CollectionsRepository) {}

  async forTenant(tenantId: string | null): Promise<CollectionEntry[]> {
    if (!tenantId) {
      return [];
    }
    const cached = this.cache.get(tenantId);
    if (cached) {
      return cached;
    }
    const rows = await this.collections.newestOf(tenantId, LIMIT);
    this.cache.set(tenantId, rows);
    return rows;
  }
}
