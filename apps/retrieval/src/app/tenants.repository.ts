import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** What retrieval reads of a tenant: its choice of memory embedding model. */
@Injectable()
export class TenantsRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  /** `tenants.memory_embedding_model`: null when the tenant chose none (or is unknown). */
  async memoryEmbeddingModelOf(tenantId: string): Promise<string | null> {
    const [row] = (await this.ds.query('SELECT memory_embedding_model FROM tenants WHERE id = $1', [
      tenantId,
    ])) as { memory_embedding_model: string | null }[];
    return row?.memory_embedding_model ?? null;
  }
}
