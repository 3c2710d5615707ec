import { Module } from '@nestjs/common';
import { PlatformModule } from '@switchyard/platform';
import { WorkerModule } from '@switchyard/worker';
import { McpModule } from '../mcp/mcp.module';
import { PreprocessController } from './preprocess.controller';
import { ToolExecutorConfig } from './tool-executor.config';
import { ToolsController } from './tools.controller';
import { SqlDataSources } from '../tools/sql/sql-data-sources';
import { ToolLimits, ToolRunner } from '@switchyard/worker';

@Module({
  imports: [PlatformModule.forRoot({ service: 'tool-executor' }), WorkerModule.forRoot(), McpModule],
  controllers: [ToolsController, PreprocessController],
  providers: [
    { provide: ToolExecutorConfig, useFactory: () => new ToolExecutorConfig() },
    {
      provide: ToolLimits,
      useFactory: (cfg: ToolExecutorConfig) => new ToolLimits(cfg.toolTimeoutMs, cfg.toolOutputMaxBytes),
      inject: [ToolExecutorConfig],
    },
    ToolRunner,
    SqlDataSources,
  ],
})
export class AppModule {}
