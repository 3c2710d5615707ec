import { Module } from '@nestjs/common';
import { ModelsModule } from '@switchyard/models';
import { PlatformModule } from '@switchyard/platform';
import { WorkerModule } from '@switchyard/worker';
import { ReflectionController } from './reflection.controller';

@Module({
  imports: [
    PlatformModule.forRoot({ service: 'reflection' }),
    WorkerModule.forRoot(),
    ModelsModule.forRoot('reflection'),
  ],
  controllers: [ReflectionController],
})
export class AppModule {}
