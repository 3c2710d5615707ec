import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type Db, kyselyOf } from '@switchyard/persistence';

/** What retrieval reads of a tenant: its choice of memory embedding model. */
@Injectable()
export class TenantsRepository {
  private readonly db: Db;

  constructor(@Inject(DataSource) ds: DataSource) {
    this.db = kyselyOf(ds);
  }

  /** `tenants.memory_embedding_model`: null when the tenant chose none (or is unknown). */
  async memoryEmbeddingModelOf(tenantId: string): Promise<string | null> {
    const row = await this.db
      .selectFrom('tenants')
      .select('memory_embedding_model')
      .where('id', '=', tenantId)
      .executeTakeFirst();
    return row?.memory_embedding_model ?? null;
  }
}
