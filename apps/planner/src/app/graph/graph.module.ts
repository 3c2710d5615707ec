import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { FileStore, fileStoreFromEnv } from '@switchyard/persistence';
import { KnowledgeStore } from '@switchyard/knowledge';
import { EmbeddingModels } from '@switchyard/models';
import { NodeDirectory, ServiceConfig } from '@switchyard/platform';
import { ProviderKeys, TavilyClient } from '@switchyard/provider-tools';
import { SqlDataSources, SqlDataSourcesLifecycle } from '@switchyard/sql-sources';
import { CodeSandbox, sandboxConfigFromEnv } from '@switchyard/sandbox';
import { AgentComponent } from './components/agent.component';
import { CategorizeComponent } from './components/categorize.component';
import { CodeExecComponent } from './components/code-exec';
import { DocsGeneratorComponent } from './components/docs-generator.component';
import { ExcelProcessorComponent } from './components/excel-processor.component';
import { ExeSqlComponent } from './components/exe-sql.component';
import { InvokeComponent } from './components/invoke.component';
import { MessageComponent } from './components/message.component';
import { RetrievalComponent } from './components/retrieval.component';
import { TavilySearchComponent } from './components/tavily-search.component';
import { UserFillUpComponent } from './components/user-fill-up.component';
import { WebToolsComponent } from './components/web-tools.component';
import { YahooFinanceComponent } from './components/yahoo-finance.component';
import { type ComponentRunner, GRAPH_COMPONENT_RUNNERS } from './component-runner';
import { GraphComponents } from './graph-components';
import { GraphProvidersConfig } from './graph-providers.config';
import { GRAPH_PROVIDERS } from './graph-providers';

/**
 * The component implementations that run in the planner. Each is a class under components/ that
 * names the RAGFlow components it runs (`names`); adding one here registers it with the
 * dispatcher (GRAPH_COMPONENT_RUNNERS). The pure components need no entry: libs/graph runs them.
 */
export const GRAPH_COMPONENT_CLASSES = [
  MessageComponent,
  CategorizeComponent,
  UserFillUpComponent,
  AgentComponent,
  RetrievalComponent,
  CodeExecComponent,
  InvokeComponent,
  ExeSqlComponent,
  DocsGeneratorComponent,
  ExcelProcessorComponent,
  TavilySearchComponent,
  YahooFinanceComponent,
  WebToolsComponent,
];

/** A graph canvas's components in the planner: their runners, the dispatcher, what they call out to. */
@Module({
  providers: [
    ...GRAPH_COMPONENT_CLASSES,
    {
      provide: GRAPH_COMPONENT_RUNNERS,
      useFactory: (...runners: ComponentRunner[]) => runners,
      inject: GRAPH_COMPONENT_CLASSES,
    },
    GraphComponents,
    // An Agent offers the nodes in the registry as tools (the planner's controller reads it too).
    NodeDirectory,
    {
      // A graph's Retrieval searches the tenant's collections in place (see docs/adr/0001).
      provide: KnowledgeStore,
      useFactory: (ds: DataSource, embeddings: EmbeddingModels) =>
        new KnowledgeStore(ds, (name, scope) => embeddings.model(name, scope)),
      inject: [DataSource, EmbeddingModels],
    },
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
    ...GRAPH_PROVIDERS,
  ],
  // PuppyEngine's edges search the same collections and files and call the same providers.
  exports: [
    GraphComponents,
    GraphProvidersConfig,
    NodeDirectory,
    KnowledgeStore,
    FileStore,
    ProviderKeys,
    TavilyClient,
  ],
})
export class GraphModule {}
