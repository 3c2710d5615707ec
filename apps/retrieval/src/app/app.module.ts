import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DEFAULT_EMBEDDING_MODEL, KnowledgeStore, MemoryStore, embeddingModel } from '@switchyard/knowledge';
import { PlatformModule } from '@switchyard/platform';
import { WorkerModule } from '@switchyard/worker';
import { MEMORY_EMBEDDING_MODEL, MemoryController } from './memory.controller';
import { RetrievalController } from './retrieval.controller';

@Module({
  imports: [PlatformModule.forRoot({ service: 'retrieval' }), WorkerModule.forRoot()],
  controllers: [MemoryController, RetrievalController],
  providers: [
    { provide: KnowledgeStore, useFactory: (ds: DataSource) => new KnowledgeStore(ds), inject: [DataSource] },
    { provide: MemoryStore, useFactory: (ds: DataSource) => new MemoryStore(ds), inject: [DataSource] },
    // The model registry may offer real embedding models later; memory only needs EmbeddingModel.
    { provide: MEMORY_EMBEDDING_MODEL, useValue: embeddingModel(DEFAULT_EMBEDDING_MODEL) },
  ],
})
export class AppModule {}
