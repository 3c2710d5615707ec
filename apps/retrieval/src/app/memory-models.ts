import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { loadConfigOrExit, tenantCacheEnvSchema } from '@switchyard/config';
import { DEFAULT_EMBEDDING_MODEL } from '@switchyard/contracts';
import { type EmbeddingModel, type EmbeddingResolver, resolveEmbeddingModel } from '@switchyard/knowledge';
import { TenantsRepository } from './tenants.repository';

/** Resolves registry embedding models (EmbeddingModels of libs/models, bound at the module). */
export const MEMORY_EMBEDDING_RESOLVER = Symbol('MEMORY_EMBEDDING_RESOLVER');

/**
 * The embedding model of a tenant's user memory (`tenants.memory_embedding_model`): a registry
 * model of category embedding, or the built-in hash-embedding-v1 when the tenant chose none.
 * A model the registry no longer has throws UnknownEmbeddingModelError (the callers say so).
 */
@Injectable()
export class MemoryModels {
  // A tenant's choice is read at most every SWITCHYARD_TENANT_CACHE_TTL_MS per replica.
  private readonly choices = new LRUCache<string, { model: string }>({
    max: 10_000,
    ttl: loadConfigOrExit(tenantCacheEnvSchema, 'retrieval').SWITCHYARD_TENANT_CACHE_TTL_MS,
  });

  constructor(
    @Inject(TenantsRepository) private readonly tenants: TenantsRepository,
    @Inject(MEMORY_EMBEDDING_RESOLVER) private readonly resolver: EmbeddingResolver,
  ) {}

  async forTenant(tenantId: string): Promise<EmbeddingModel> {
    return resolveEmbeddingModel(await this.choiceOf(tenantId), { tenant_id: tenantId }, this.resolver);
  }

  /** The model name the tenant chose (the built-in one when none). */
  async choiceOf(tenantId: string): Promise<string> {
    const cached = this.choices.get(tenantId);
    if (cached) {
      return cached.model;
    }
    const model = (await this.tenants.memoryEmbeddingModelOf(tenantId)) ?? DEFAULT_EMBEDDING_MODEL;
    this.choices.set(tenantId, { model });
    return model;
  }
}
