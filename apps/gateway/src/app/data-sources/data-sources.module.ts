import { Module } from '@nestjs/common';
import { DataSourcesController } from './data-sources.controller';
import { DataSourcesRepository } from './data-sources.repository';
import { ToolOutputsController } from './tool-outputs.controller';

/** Data sources for the sql_query tool, and the full outputs of truncated tool results. */
@Module({
  controllers: [DataSourcesController, ToolOutputsController],
  providers: [DataSourcesRepository],
})
export class DataSourcesModule {}
