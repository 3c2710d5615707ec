import { Module } from '@nestjs/common';
import { ModelsModule } from '@switchyard/models';
import { PlatformModule } from '@switchyard/platform';
import { WorkerModule } from '@switchyard/worker';
import { OutputController } from './output.controller';

@Module({
  imports: [
    PlatformModule.forRoot({ service: 'output' }),
    WorkerModule.forRoot(),
    ModelsModule.forRoot('output'),
  ],
  controllers: [OutputController],
})
export class AppModule {}
