import { Module } from '@nestjs/common';
import { PlatformModule } from '@switchyard/platform';
import { WorkerModule } from '@switchyard/worker';
import { PreprocessController } from './preprocess.controller';
import { ToolExecutorConfig } from './tool-executor.config';
import { ToolsController } from './tools.controller';

@Module({
  imports: [PlatformModule.forRoot({ service: 'tool-executor' }), WorkerModule.forRoot()],
  controllers: [ToolsController, PreprocessController],
  providers: [{ provide: ToolExecutorConfig, useFactory: () => new ToolExecutorConfig() }],
})
export class AppModule {}
