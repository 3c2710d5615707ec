import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { KnowledgeStore } from '@switchyard/knowledge';
import { PlatformModule } from '@switchyard/platform';
import { WorkerModule } from '@switchyard/worker';
import { MemoryController } from './memory.controller';
import { RetrievalController } from './retrieval.controller';

@Module({
  imports: [PlatformModule.forRoot({ service: 'retrieval' }), WorkerModule.forRoot()],
  controllers: [MemoryController, RetrievalController],
  providers: [
    { provide: KnowledgeStore, useFactory: (ds: DataSource) => new KnowledgeStore(ds), inject: [DataSource] },
  ],
})
export class AppModule {}
