import { Module } from '@nestjs/common';
import { PlatformModule } from '@switchyard/platform';
import { WorkerModule } from '@switchyard/worker';
import { MemoryController } from './memory.controller';

@Module({
  imports: [PlatformModule.forRoot({ service: 'retrieval' }), WorkerModule.forRoot()],
  controllers: [MemoryController],
})
export class AppModule {}
