import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { FileStore, fileStoreFromEnv } from '@switchyard/persistence';
import { KnowledgeStore } from '@switchyard/knowledge';
import { EmbeddingModels, ModelsModule } from '@switchyard/models';
import { GraphNodesRegistrar, NodeDirectory, PlatformModule, ServiceConfig } from '@switchyard/platform';
import { SqlDataSources, SqlDataSourcesLifecycle } from '@switchyard/sql-sources';
import { CodeSandbox, sandboxConfigFromEnv } from '@switchyard/sandbox';
import { WorkerModule } from '@switchyard/worker';
import { AgentComponent } from './graph/components/agent.component';
import { RetrievalComponent } from './graph/components/retrieval.component';
import { CodeExecComponent } from './graph/components/code-exec';
import { ExeSqlComponent } from './graph/components/exe-sql.component';
import { DocsGeneratorComponent } from './graph/components/docs-generator.component';
import { ExcelProcessorComponent } from './graph/components/excel-processor.component';
import { GraphProvidersConfig } from './graph/graph-providers.config';
import { GraphCanvasLoader } from './graph/graph-canvas.loader';
import { GraphComponentRunner } from './graph/graph-component.runner';
import { GraphComponents } from './graph/graph-components';
import { GraphComponentsController } from './graph/graph-components.controller';
import { PuppyEdges } from './graph/puppy/puppy-edges';
import { PuppyResearch } from './graph/puppy/puppy-research';
import { PuppySearch } from './graph/puppy/puppy-search';
import { PuppyWeb } from './graph/puppy/puppy-web';
import { PuppyLoad } from './graph/puppy/puppy-load';
import { PuppyWorkflowRunner } from './graph/puppy/puppy-workflow.runner';
import { GRAPH_PROVIDERS } from './graph/graph-providers';
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
  ],
  controllers: [IntakeController, PlannerController, GraphComponentsController],
  providers: [
    NodeDirectory,
    RunsRepository,
    CollectionsRepository,
    RunAgentConfig,
    UserProfileLoader,
    TenantCollections,
    GraphCanvasLoader,
    GraphComponents,
    AgentComponent,
    RetrievalComponent,
    {
      // A graph's Retrieval searches the tenant's collections in place (see docs/adr/0001).
      provide: KnowledgeStore,
      useFactory: (ds: DataSource, embeddings: EmbeddingModels) =>
        new KnowledgeStore(ds, (name, scope) => embeddings.model(name, scope)),
      inject: [DataSource, EmbeddingModels],
    },
    GraphComponentRunner,
    CodeExecComponent,
    ExeSqlComponent,
    DocsGeneratorComponent,
    ExcelProcessorComponent,
    // DocGenerator and ExcelProcessor keep the files they make in the tenant's files.
    { provide: FileStore, useFactory: (ds: DataSource) => fileStoreFromEnv(ds), inject: [DataSource] },
    {
      // ExeSQL queries the tenant's data sources with sql_query's guards (libs/sql-sources).
      provide: SqlDataSources,
      useFactory: (ds: DataSource, cfg: GraphProvidersConfig, service: ServiceConfig) =>
        new SqlDataSources(ds, {
          secretKey: cfg.secretKey,
          allowHosts: cfg.sqlAllowHosts,
          ownDatabaseUrl: service.env.DATABASE_URL,
          applicationName: 'switchyard-exesql',
        }),
      inject: [DataSource, GraphProvidersConfig, ServiceConfig],
    },
    SqlDataSourcesLifecycle,
    // The sandbox's limits (SANDBOX_*) are validated here, at start-up.
    { provide: CodeSandbox, useFactory: () => new CodeSandbox(sandboxConfigFromEnv()) },
    GraphNodesRegistrar,
    PuppyEdges,
    PuppySearch,
    PuppyWeb,
    PuppyResearch,
    PuppyLoad,
    PuppyWorkflowRunner,
    ...GRAPH_PROVIDERS,
    { provide: PlannerConfig, useFactory: () => new PlannerConfig() },
  ],
})
export class AppModule {}
