import { Module } from '@nestjs/common';
import { ModelsModule } from '@switchyard/models';
import { PlatformModule } from '@switchyard/platform';
import { WorkerModule } from '@switchyard/worker';
import { OutputController } from './output.controller';
import { RunOutputContextRepository } from './run-output-context.repository';
import { MarkdownAnswerTool } from './tools/markdown-answer.tool';
import { StructuredOutputTool } from './tools/structured-output.tool';
import { TitleGenerator } from './tools/title.generator';

@Module({
  imports: [
    PlatformModule.forRoot({ service: 'output' }),
    WorkerModule.forRoot(),
    ModelsModule.forRoot('output'),
  ],
  controllers: [OutputController],
  providers: [RunOutputContextRepository, MarkdownAnswerTool, StructuredOutputTool, TitleGenerator],
})
export class AppModule {}
