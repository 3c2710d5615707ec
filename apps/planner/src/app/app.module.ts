import { Module } from '@nestjs/common';
import { ModelsModule } from '@switchyard/models';
import { GraphNodesRegistrar, PlatformModule } from '@switchyard/platform';
import { WorkerModule } from '@switchyard/worker';
import { GraphCanvasLoader } from './graph/graph-canvas.loader';
import { GraphComponentRunner } from './graph/graph-component.runner';
import { GraphComponentsController } from './graph/graph-components.controller';
import { GraphModule } from './graph/graph.module';
import { PuppyEdges } from './graph/puppy/puppy-edges';
import { PuppyResearch } from './graph/puppy/puppy-research';
import { PuppySearch } from './graph/puppy/puppy-search';
import { PuppyWeb } from './graph/puppy/puppy-web';
import { PuppyLoad } from './graph/puppy/puppy-load';
import { PuppyWorkflowRunner } from './graph/puppy/puppy-workflow.runner';
import { IntakeController } from './intake.controller';
import { PlannerConfig } from './planner.config';
import { PlannerController } from './planner.controller';
import { RunAgentConfig } from './run-agent-config.service';
import { RunsRepository } from './runs.repository';
import { CollectionsRepository } from './collections.repository';
import { TenantCollections } from './tenant-collections.loader';
import { UserProfileLoader } from './user-profile.loader';

@Module({
  imports: [
    // Short queries only (state deltas, the run's agent, model usage): a small pool keeps two
    // replicas of every service within Postgres' connection limit (scale-out e2e).
    PlatformModule.forRoot({ service: 'planner', poolSize: 5 }),
    WorkerModule.forRoot(),
    ModelsModule.forRoot('planner'),
    // The canvas components (graph/graph.module.ts): each registers itself there.
    GraphModule,
  ],
  controllers: [IntakeController, PlannerController, GraphComponentsController],
  providers: [
    RunsRepository,
    CollectionsRepository,
    RunAgentConfig,
    UserProfileLoader,
    TenantCollections,
    GraphCanvasLoader,
    GraphComponentRunner,
    GraphNodesRegistrar,
    PuppyEdges,
    PuppySearch,
    PuppyWeb,
    PuppyResearch,
    PuppyLoad,
    PuppyWorkflowRunner,
    { provide: PlannerConfig, useFactory: () => new PlannerConfig() },
  ],
})
export class AppModule {}
