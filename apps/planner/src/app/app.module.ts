import { Module } from '@nestjs/common';
import { ModelsModule } from '@switchyard/models';
import { NodeDirectory, PlatformModule } from '@switchyard/platform';
import { WorkerModule } from '@switchyard/worker';
import { IntakeController } from './intake.controller';
import { PlannerController } from './planner.controller';
import { RunAgentConfig } from './run-agent-config.service';

@Module({
  imports: [
    PlatformModule.forRoot({ service: 'planner' }),
    WorkerModule.forRoot(),
    ModelsModule.forRoot('planner'),
  ],
  controllers: [IntakeController, PlannerController],
  providers: [NodeDirectory, RunAgentConfig],
})
export class AppModule {}
