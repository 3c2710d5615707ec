import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DEFAULT_EMBEDDING_MODEL, KnowledgeStore, MemoryStore, embeddingModel } from '@switchyard/knowledge';
import { EmbeddingModels, ModelsModule } from '@switchyard/models';
import { PlatformModule } from '@switchyard/platform';
import { loadConfigOrExit } from '@switchyard/config';
import { ToolLimits, ToolRunner, WorkerModule, toolLimitsEnvSchema } from '@switchyard/worker';
import { MEMORY_EMBEDDING_MODEL, MemoryController } from './memory.controller';
import { RetrievalController } from './retrieval.controller';

@Module({
  imports: [
    PlatformModule.forRoot({ service: 'retrieval' }),
    WorkerModule.forRoot(),
    ModelsModule.forRoot('retrieval'),
  ],
  controllers: [MemoryController, RetrievalController],
  providers: [
    {
      provide: KnowledgeStore,
      useFactory: (ds: DataSource, embeddings: EmbeddingModels) =>
        new KnowledgeStore(ds, (name, scope) => embeddings.model(name, scope)),
      inject: [DataSource, EmbeddingModels],
    },
    {
      provide: ToolLimits,
      useFactory: () => ToolLimits.of(loadConfigOrExit(toolLimitsEnvSchema, 'retrieval')),
    },
    ToolRunner,
    { provide: MemoryStore, useFactory: (ds: DataSource) => new MemoryStore(ds), inject: [DataSource] },
    // Memory embeds with the built-in model: it must work offline for every user from the start.
    { provide: MEMORY_EMBEDDING_MODEL, useValue: embeddingModel(DEFAULT_EMBEDDING_MODEL) },
  ],
})
export class AppModule {}
