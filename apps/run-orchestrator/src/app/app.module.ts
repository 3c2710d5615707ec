import { Module } from '@nestjs/common';
import { PgStateSource } from '@switchyard/persistence';
import { NodeDirectory, PlatformModule } from '@switchyard/platform';
import { StateCache } from '@switchyard/state';
import { ApplyDeltaUseCase } from './apply-delta.usecase';
import { EndRunUseCase } from './end-run.usecase';
import { RunStepper } from './run-stepper.service';
import { RunsConsumer } from './runs.consumer';
import { StartRunUseCase } from './start-run.usecase';
import { TaskOutbox } from './task-outbox.service';

@Module({
  imports: [PlatformModule.forRoot({ service: 'run-orchestrator', poolSize: 20 })],
  controllers: [RunsConsumer],
  providers: [
    {
      provide: StateCache,
      useFactory: (source: PgStateSource) => new StateCache(source, 5000),
      inject: [PgStateSource],
    },
    NodeDirectory,
    RunStepper,
    TaskOutbox,
    StartRunUseCase,
    ApplyDeltaUseCase,
    EndRunUseCase,
  ],
})
export class AppModule {}
