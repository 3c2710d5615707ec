import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { KnowledgeStore, MemoryStore } from '@switchyard/knowledge';
import { EmbeddingModels, ModelsModule } from '@switchyard/models';
import { PlatformModule } from '@switchyard/platform';
import { loadConfigOrExit } from '@switchyard/config';
import { ToolLimits, ToolRunner, WorkerModule, toolLimitsEnvSchema } from '@switchyard/worker';
import { MemoryController } from './memory.controller';
import { MEMORY_EMBEDDING_RESOLVER, MemoryModels } from './memory-models';
import { RetrievalController } from './retrieval.controller';
import { RunsRepository } from './runs.repository';
import { TenantsRepository } from './tenants.repository';

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
    // Memory embeds with the tenant's choice of registry model; the built-in hash model (offline)
    // until the tenant chooses one.
    {
      provide: MEMORY_EMBEDDING_RESOLVER,
      useFactory: (embeddings: EmbeddingModels) => (name: string, scope: { tenant_id: string }) =>
        embeddings.model(name, scope),
      inject: [EmbeddingModels],
    },
    TenantsRepository,
    MemoryModels,
    RunsRepository,
  ],
})
export class AppModule {}
