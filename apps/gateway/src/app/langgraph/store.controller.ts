import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Post,
  Put,
  Query,
  Res,
  UseGuards,
} from '@nestjs/common';
import type { Response } from 'express';
import { normalize, resolveEmbeddingModel } from '@switchyard/knowledge';
import { EmbeddingModels } from '@switchyard/models';
import { ApiKeyGuard, Tenant, type TenantContext } from '../auth/api-key.guard';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { GatewayConfig } from '../gateway.config';
import { ZodPipe } from '../http/zod-body.pipe';
import {
  type StoreNamespaces,
  StoreNamespacesSchema,
  type StorePut,
  StorePutSchema,
  StoreDeleteSchema,
  StoreItemQuerySchema,
  type StoreSearch,
  StoreSearchSchema,
} from './langgraph.schemas';
import { type StoreItemRow, StoreRepository } from './store.repository';

/**
 * The store (`client.store`): a tenant's long-term JSON documents by namespace and key, with TTLs
 * (minutes) and semantic search over the indexed text of each item, embedded with
 * SWITCHYARD_STORE_EMBEDDING_MODEL (a built-in model, or the registry's of that name).
 */
@Controller('store')
@UseGuards(ApiKeyGuard, RateLimitGuard)
export class LangGraphStoreController {
  constructor(
    @Inject(StoreRepository) private readonly store: StoreRepository,
    @Inject(EmbeddingModels) private readonly embeddings: EmbeddingModels,
    @Inject(GatewayConfig) private readonly config: GatewayConfig,
  ) {}

  @Put('items')
  @HttpCode(204)
  async put(
    @Tenant() tenant: TenantContext,
    @Body(new ZodPipe(StorePutSchema)) body: StorePut,
  ): Promise<void> {
    const text = body.index === false ? null : indexedText(body.value, body.index ?? ['$']);
    const embedding = text === null ? null : await this.embed(tenant.tenantId, text);
    await this.store.put(tenant.tenantId, {
      namespace: body.namespace,
      key: body.key,
      value: body.value,
      embedding,
      ttlMinutes: body.ttl ?? null,
    });
  }

  /** The item, or `null` when there is none (what the SDK's `getItem` expects). */
  @Get('items')
  async get(
    @Tenant() tenant: TenantContext,
    @Query(new ZodPipe(StoreItemQuerySchema)) q: { namespace: string[]; key: string; refresh_ttl?: string },
    @Res() res: Response,
  ): Promise<void> {
    const refresh = q.refresh_ttl === undefined || q.refresh_ttl === 'true' || q.refresh_ttl === '1';
    const item = await this.store.get(tenant.tenantId, q.namespace, q.key, refresh);
    // A JSON `null` body (Nest would send none for a null result).
    res.status(200).json(item ? itemView(item) : null);
  }

  @Delete('items')
  @HttpCode(204)
  async delete(
    @Tenant() tenant: TenantContext,
    @Body(new ZodPipe(StoreDeleteSchema)) body: { namespace: string[]; key: string },
  ): Promise<void> {
    await this.store.delete(tenant.tenantId, body.namespace, body.key);
  }

  @Post('items/search')
  @HttpCode(200)
  async search(@Tenant() tenant: TenantContext, @Body(new ZodPipe(StoreSearchSchema)) q: StoreSearch) {
    const semantic = q.query ? await this.embed(tenant.tenantId, q.query) : undefined;
    const items = await this.store.search(tenant.tenantId, {
      prefix: q.namespace_prefix,
      filter: q.filter ?? {},
      limit: q.limit,
      offset: q.offset,
      ...(semantic ? { semantic } : {}),
      refreshTtl: q.refresh_ttl ?? true,
    });
    return { items: items.map(itemView) };
  }

  @Post('namespaces')
  @HttpCode(200)
  async namespaces(
    @Tenant() tenant: TenantContext,
    @Body(new ZodPipe(StoreNamespacesSchema)) q: StoreNamespaces,
  ) {
    return {
      namespaces: await this.store.namespaces(tenant.tenantId, {
        prefix: q.prefix ?? [],
        suffix: q.suffix ?? [],
        maxDepth: q.max_depth ?? null,
        limit: q.limit,
        offset: q.offset,
      }),
    };
  }

  private async embed(tenantId: string, text: string): Promise<{ vector: number[]; model: string }> {
    const name = this.config.storeEmbeddingModel;
    const model = await resolveEmbeddingModel(name, { tenant_id: tenantId }, (n, scope) =>
      this.embeddings.model(n, scope),
    );
    const [vector] = await model.embed([text]);
    return { vector: normalize(vector), model: name };
  }
}

/** The text an item is indexed by: the named fields ("$" the whole value; "a.b" a nested one). */
export function indexedText(value: Record<string, unknown>, fields: readonly string[]): string {
  const parts: string[] = [];
  for (const field of fields) {
    let v: unknown = value;
    if (field !== '$') {
      for (const step of field.replace(/^\$\./, '').split('.')) {
        v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[step] : undefined;
      }
    }
    if (v !== undefined && v !== null) {
      parts.push(typeof v === 'string' ? v : JSON.stringify(v));
    }
  }
  return parts.join('\n');
}

function itemView(r: StoreItemRow) {
  return {
    namespace: r.namespace,
    key: r.key,
    value: r.value,
    created_at: new Date(r.created_at).toISOString(),
    updated_at: new Date(r.updated_at).toISOString(),
    ...(r.score !== undefined ? { score: r.score } : {}),
  };
}
