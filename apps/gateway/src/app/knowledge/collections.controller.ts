import { Body, Controller, Get, HttpCode, Inject, Param, Post, UseGuards } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { EmbeddingModels, LlmCallException } from '@switchyard/models';
import { z } from 'zod';
import {
  type CollectionBlock,
  CollectionConfigsSchema,
  type CreateCollection,
  CreateCollectionSchema,
  INDEX_STATUSES,
  type IngestDocuments,
  IngestDocumentsSchema,
  KnowledgeError,
  KnowledgeStore,
  type SearchRequest,
  SearchRequestSchema,
  UnknownEmbeddingModelError,
} from '@switchyard/knowledge';
import { ApiKeyGuard, Tenant, type TenantContext } from '../auth/api-key.guard';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { ZodPipe } from '../http/zod-body.pipe';

export { CreateCollectionSchema, IngestDocumentsSchema, SearchRequestSchema };

const CollectionIdSchema = z.string().uuid();

export const CollectionSchema = z.object({
  id: z.string().uuid(),
  name: z.string(),
  indexingList: z.array(
    z.object({
      index_name: z.string(),
      status: z.enum(INDEX_STATUSES),
      error: z.string().optional(),
      collection_configs: CollectionConfigsSchema,
    }),
  ),
});
export const IngestedSchema = z.object({ ingested: z.number().int() });
export const SearchResponseSchema = z.object({
  results: z.array(
    z.object({
      text: z.string(),
      score: z.number(),
      metadata: z.record(z.string(), z.unknown()),
      index_name: z.string(),
    }),
  ),
});

/**
 * Knowledge collections (seed 000's vector-collection blocks; `id` is the block id), tenant-scoped:
 * another tenant's collection answers 404. Ingestion runs inline in the request: chunking,
 * embeddings (built in, or a registry model called with the tenant's keys and metered) and
 * inserts, so the request answers 202 once every index set is `done` (or `failed` with its
 * reason). A queue-backed ingestion for large uploads can replace it behind the same statuses.
 */
@Controller('v1/collections')
@UseGuards(ApiKeyGuard, RateLimitGuard)
export class CollectionsController {
  private readonly store: KnowledgeStore;

  constructor(@Inject(DataSource) ds: DataSource, @Inject(EmbeddingModels) embeddings: EmbeddingModels) {
    this.store = new KnowledgeStore(ds, (name, scope) => embeddings.model(name, scope));
  }

  @Post()
  async create(
    @Tenant() tenant: TenantContext,
    @Body(new ZodPipe(CreateCollectionSchema)) body: CreateCollection,
  ): Promise<CollectionBlock> {
    return this.store.createCollection(tenant.tenantId, body);
  }

  @Get(':id')
  async get(@Tenant() tenant: TenantContext, @Param('id', new ZodPipe(CollectionIdSchema)) id: string) {
    const block = await this.store.getCollection(tenant.tenantId, id);
    if (!block) {
      throw ApiException.notFound('collection');
    }
    return block;
  }

  @Post(':id/documents')
  @HttpCode(202)
  async ingest(
    @Tenant() tenant: TenantContext,
    @Param('id', new ZodPipe(CollectionIdSchema)) id: string,
    @Body(new ZodPipe(IngestDocumentsSchema)) body: IngestDocuments,
  ) {
    const done = await this.store.ingest(tenant.tenantId, id, body);
    if (!done) {
      throw ApiException.notFound('collection');
    }
    return { ingested: done.ingested };
  }

  @Post(':id/search')
  @HttpCode(200)
  async search(
    @Tenant() tenant: TenantContext,
    @Param('id', new ZodPipe(CollectionIdSchema)) id: string,
    @Body(new ZodPipe(SearchRequestSchema)) body: SearchRequest,
  ) {
    try {
      const results = await this.store.searchCollection(tenant.tenantId, id, body.query, {
        mode: body.mode,
        topK: body.top_k,
        threshold: body.threshold,
        indexName: body.index_name,
      });
      if (!results) {
        throw ApiException.notFound('collection');
      }
      return { results };
    } catch (err) {
      if (err instanceof KnowledgeError || err instanceof UnknownEmbeddingModelError) {
        throw new ApiException(ApiErrorCode.InvalidRequest, err.message, [
          { field: err instanceof KnowledgeError ? 'index_name' : 'model', message: err.message },
        ]);
      }
      if (err instanceof LlmCallException) {
        // The index set's registry embedding model could not embed the query (no key, vendor down…).
        throw new ApiException(ApiErrorCode.Unavailable, `embedding the query failed: ${err.message}`);
      }
      throw err;
    }
  }
}
