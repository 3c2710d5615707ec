import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { KnowledgeStore } from '@switchyard/knowledge';
import { EmbeddingModels } from '@switchyard/models';
import { CollectionsController } from './collections.controller';

/** Knowledge collections: ingest, index, search (KnowledgeStore holds the queries). */
@Module({
  controllers: [CollectionsController],
  providers: [
    {
      provide: KnowledgeStore,
      useFactory: (ds: DataSource, embeddings: EmbeddingModels) =>
        new KnowledgeStore(ds, (name, scope) => embeddings.model(name, scope)),
      inject: [DataSource, EmbeddingModels],
    },
  ],
  exports: [KnowledgeStore],
})
export class KnowledgeModule {}
