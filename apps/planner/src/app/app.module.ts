import { Module } from '@nestjs/common';
import { ModelsModule } from '@switchyard/models';
import { NodeDirectory, PlatformModule } from '@switchyard/platform';
import { WorkerModule } from '@switchyard/worker';
import { IntakeController } from './intake.controller';
import { PlannerController } from './planner.controller';

@Module({
  imports: [
    PlatformModule.forRoot({ service: 'planner' }),
    WorkerModule.forRoot(),
    ModelsModule.forRoot('planner'),
  ],
  controllers: [IntakeController, PlannerController],
  providers: [NodeDirectory],
})
export class AppModule {}
