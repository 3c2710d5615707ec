import { Module } from '@nestjs/common';
import { PlatformModule } from '@switchyard/platform';
import { WorkerModule } from '@switchyard/worker';
import { BenchNodesController } from './bench-nodes.controller';

@Module({
  imports: [PlatformModule.forRoot({ service: 'bench-nodes', poolSize: 5 }), WorkerModule.forRoot()],
  controllers: [BenchNodesController],
})
export class AppModule {}
