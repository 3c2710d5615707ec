import {
  Inject,
  Logger,
  type MiddlewareConsumer,
  Module,
  type NestModule,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { RunEventHub } from '@switchyard/events';
import { ModelsModule } from '@switchyard/models';
import { PlatformModule } from '@switchyard/platform';
import { A2aModule } from './a2a/a2a.module';
import { AdminModule } from './admin/admin.module';
import { RagflowModule } from './ragflow/ragflow.module';
import { AgentsModule } from './agents/agents.module';
import { GatewayCoreModule } from './core.module';
import { DataSourcesModule } from './data-sources/data-sources.module';
import { FilesModule } from './files/files.module';
import { ApiExceptionFilter } from './http/api-exception.filter';
import { requireJsonBody } from './http/json-content-type.middleware';
import { KnowledgeModule } from './knowledge/knowledge.module';
import { LangGraphModule } from './langgraph/langgraph.module';
import { McpModule } from './mcp/mcp.module';
import { OpenAiModule } from './openai/openai.module';
import { AgentsMcpModule } from './agents-mcp/agents-mcp.module';
import { RegistryModule } from './registry/registry.module';
import { RunsModule } from './runs/runs.module';
import { ThreadsModule } from './threads/threads.module';
import { ToolsModule } from './tools/tools.module';
import { UsersModule } from './users/users.module';

/**
 * The gateway: one module per feature (its controllers, and its queries behind a repository),
 * over the shared core (configuration, auth, runs, events). The OpenAI- and LangGraph-compatible
 * surfaces are adapters over the same services.
 */
@Module({
  imports: [
    PlatformModule.forRoot({ service: 'gateway', poolSize: 20, requestLogs: true }),
    ModelsModule.forRoot('gateway'),
    GatewayCoreModule,
    RunsModule,
    ThreadsModule,
    AgentsModule,
    KnowledgeModule,
    ToolsModule,
    McpModule,
    DataSourcesModule,
    FilesModule,
    UsersModule,
    RegistryModule,
    AdminModule,
    OpenAiModule,
    AgentsMcpModule,
    A2aModule,
    RagflowModule,
    LangGraphModule,
  ],
  providers: [{ provide: APP_FILTER, useClass: ApiExceptionFilter }],
})
export class AppModule implements NestModule, OnApplicationShutdown {
  constructor(@Inject(RunEventHub) private readonly hub: RunEventHub) {}

  async onApplicationShutdown(): Promise<void> {
    await this.hub.close();
    new Logger('Gateway').log({ msg: 'event hub closed' });
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(requireJsonBody).forRoutes('*path');
  }
}
