import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { FileStore, PgStateSource, fileStoreFromEnv } from '@switchyard/persistence';
import {
  GraphNodesRegistrar,
  boundedStateCache,
  NodeDirectory,
  PlatformModule,
  ServiceConfig,
  TenantWeights,
} from '@switchyard/platform';
import { RecentDeltas, StateCache } from '@switchyard/state';
import { ApplyDeltaUseCase } from './apply-delta.usecase';
import { CancelFence } from './cancel-fence.service';
import { EndRunUseCase } from './end-run.usecase';
import { StepCommitGroup } from './group-commit';
import { HumanNodesRegistrar } from './human-nodes.registrar';
import { InlineNodes } from './inline-nodes.service';
import { RunStepper } from './run-stepper.service';
import { RunsConsumer } from './runs.consumer';
import { StartRunUseCase } from './start-run.usecase';
import { OrchestratorConfig } from './orchestrator.config';
import { SnapshotWriter } from './snapshot-writer.service';
import { TaskOutbox } from './task-outbox.service';
import { OrchestratorGauges } from './orchestrator.gauges';
import { TaskReaper } from './task-reaper.service';
import { RetentionJob } from './retention.service';
import { DelayedRunsJob } from './delayed-runs.job';
import { ExpirySweepJob } from './expiry-sweep.job';

@Module({
  imports: [PlatformModule.forRoot({ service: 'run-orchestrator', poolSize: 20 })],
  controllers: [RunsConsumer],
  providers: [
    {
      provide: StateCache,
      useFactory: (source: PgStateSource, config: ServiceConfig) =>
        boundedStateCache(config, (maxBytes) => new StateCache(source, 5000, maxBytes)),
      inject: [PgStateSource, ServiceConfig],
    },
    // A thread's last 8 deltas are held; a task carries those its service has not seen (the
    // default agent's planner sees every third step), up to 32 KiB, or the service reads them.
    { provide: RecentDeltas, useFactory: () => new RecentDeltas(8, 32 * 1024, 5000) },
    NodeDirectory,
    TenantWeights,
    GraphNodesRegistrar,
    InlineNodes,
    RunStepper,
    TaskOutbox,
    SnapshotWriter,
    CancelFence,
    TaskReaper,
    RetentionJob,
    ExpirySweepJob,
    { provide: FileStore, useFactory: (ds: DataSource) => fileStoreFromEnv(ds), inject: [DataSource] },
    DelayedRunsJob,
    OrchestratorGauges,
    HumanNodesRegistrar,
    { provide: OrchestratorConfig, useFactory: () => new OrchestratorConfig() },
    {
      provide: StepCommitGroup,
      useFactory: (ds: DataSource, config: OrchestratorConfig) =>
        new StepCommitGroup(ds, config.groupCommit.maxSteps, config.groupCommit.workers),
      inject: [DataSource, OrchestratorConfig],
    },
    StartRunUseCase,
    ApplyDeltaUseCase,
    EndRunUseCase,
  ],
})
export class AppModule {}
