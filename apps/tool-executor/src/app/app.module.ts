import { Module } from '@nestjs/common';
import { PlatformModule } from '@switchyard/platform';
import { WorkerModule } from '@switchyard/worker';
import { McpModule } from '../mcp/mcp.module';
import { PreprocessController } from './preprocess.controller';
import { ToolExecutorConfig } from './tool-executor.config';
import { ToolsController } from './tools.controller';
import { SqlDataSources } from '../tools/sql/sql-data-sources';
import { ToolRunner } from '../tools/tool-runner';

@Module({
  imports: [PlatformModule.forRoot({ service: 'tool-executor' }), WorkerModule.forRoot(), McpModule],
  controllers: [ToolsController, PreprocessController],
  providers: [
    { provide: ToolExecutorConfig, useFactory: () => new ToolExecutorConfig() },
    ToolRunner,
    SqlDataSources,
  ],
})
export class AppModule {}
