import {
  Inject,
  type MiddlewareConsumer,
  Module,
  type NestModule,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { RunEventHub } from '@switchyard/events';
import { ModelsModule } from '@switchyard/models';
import { PlatformModule } from '@switchyard/platform';
import { AgentsController } from './agents/agents.controller';
import { ProviderKeysController } from './admin/provider-keys.controller';
import { DataSourcesController } from './data-sources/data-sources.controller';
import { ToolOutputsController } from './data-sources/tool-outputs.controller';
import { TenantsController } from './admin/tenants.controller';
import { GatewayCoreModule } from './core.module';
import { LangGraphModule } from './langgraph/langgraph.module';
import { CollectionsController } from './knowledge/collections.controller';
import { ApiExceptionFilter } from './http/api-exception.filter';
import { requireJsonBody } from './http/json-content-type.middleware';
import { ChatCompletionsController } from './openai/chat-completions.controller';
import { OpenAiModelsController } from './openai/openai-models.controller';
import { ModelsController } from './registry/models.controller';
import { McpServersController } from './mcp/mcp-servers.controller';
import { UsageController } from './registry/usage.controller';
import { VendorKeysController } from './registry/vendor-keys.controller';
import { VendorsController } from './registry/vendors.controller';
import { RunsController } from './runs/runs.controller';
import { ThreadsModule } from './threads/threads.module';
import { ToolsController } from './tools/tools.controller';
import { UsersController } from './users/users.controller';

@Module({
  imports: [
    PlatformModule.forRoot({ service: 'gateway', poolSize: 20 }),
    ModelsModule.forRoot('gateway'),
    GatewayCoreModule,
    ThreadsModule,
    LangGraphModule,
  ],
  controllers: [
    AgentsController,
    RunsController,
    TenantsController,
    ChatCompletionsController,
    OpenAiModelsController,
    ToolsController,
    CollectionsController,
    VendorsController,
    VendorKeysController,
    ModelsController,
    UsageController,
    McpServersController,
    DataSourcesController,
    ProviderKeysController,
    ToolOutputsController,
    UsersController,
  ],
  providers: [{ provide: APP_FILTER, useClass: ApiExceptionFilter }],
})
export class AppModule implements NestModule, OnApplicationShutdown {
  constructor(@Inject(RunEventHub) private readonly hub: RunEventHub) {}

  async onApplicationShutdown(): Promise<void> {
    await this.hub.close();
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(requireJsonBody).forRoutes('*path');
  }
}
