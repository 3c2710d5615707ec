import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { FileStore, fileStoreFromEnv } from '@switchyard/persistence';
import { SqlDataSources, SqlDataSourcesLifecycle } from '@switchyard/sql-sources';
import { PlatformModule, ServiceConfig } from '@switchyard/platform';
import { WorkerModule } from '@switchyard/worker';
import { McpModule } from '../mcp/mcp.module';
import { PreprocessController } from './preprocess.controller';
import { ToolExecutorConfig } from './tool-executor.config';
import { CatalogueTools } from './catalogue-tools';
import { ToolCallsServer } from './tool-calls.server';
import { ToolsController } from './tools.controller';
import { ToolLimits, ToolRunner } from '@switchyard/worker';

@Module({
  imports: [PlatformModule.forRoot({ service: 'tool-executor' }), WorkerModule.forRoot(), McpModule],
  controllers: [ToolsController, PreprocessController],
  providers: [
    { provide: ToolExecutorConfig, useFactory: () => new ToolExecutorConfig() },
    // Uploaded files a run names (`file_id`) are read from the tenant's file store.
    { provide: FileStore, useFactory: (ds: DataSource) => fileStoreFromEnv(ds), inject: [DataSource] },
    {
      provide: ToolLimits,
      useFactory: (cfg: ToolExecutorConfig) => new ToolLimits(cfg.toolTimeoutMs, cfg.toolOutputMaxBytes),
      inject: [ToolExecutorConfig],
    },
    ToolRunner,
    CatalogueTools,
    ToolCallsServer,
    {
      provide: SqlDataSources,
      useFactory: (ds: DataSource, cfg: ToolExecutorConfig, service: ServiceConfig) =>
        new SqlDataSources(ds, {
          secretKey: cfg.secretKey,
          allowHosts: cfg.sqlAllowHosts,
          ownDatabaseUrl: service.env.DATABASE_URL,
          applicationName: 'switchyard-sql_query',
        }),
      inject: [DataSource, ToolExecutorConfig, ServiceConfig],
    },
    SqlDataSourcesLifecycle,
  ],
})
export class AppModule {}
