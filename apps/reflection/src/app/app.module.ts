import { Module } from '@nestjs/common';
import { ModelsModule } from '@switchyard/models';
import { PlatformModule } from '@switchyard/platform';
import { WorkerModule } from '@switchyard/worker';
import { ReflectionConfig } from './reflection.config';
import { ReflectionController } from './reflection.controller';

@Module({
  imports: [
    // Short queries only (state deltas, model usage): a small pool keeps two
    // replicas of every service within Postgres' connection limit (scale-out e2e).
    PlatformModule.forRoot({ service: 'reflection', poolSize: 5 }),
    WorkerModule.forRoot(),
    ModelsModule.forRoot('reflection'),
  ],
  controllers: [ReflectionController],
  providers: [{ provide: ReflectionConfig, useFactory: () => new ReflectionConfig() }],
})
export class AppModule {}
