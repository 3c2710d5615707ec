import {
  Inject,
  type MiddlewareConsumer,
  Module,
  type NestModule,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { SecretBox } from '@switchyard/config';
import { RunEventHub } from '@switchyard/events';
import { ModelsModule } from '@switchyard/models';
import { NodeDirectory, PlatformModule } from '@switchyard/platform';
import { AdminTokenGuard } from './admin/admin-token.guard';
import { AgentsController } from './agents/agents.controller';
import { ProviderKeysController } from './admin/provider-keys.controller';
import { DataSourcesController } from './data-sources/data-sources.controller';
import { ToolOutputsController } from './data-sources/tool-outputs.controller';
import { TenantsController } from './admin/tenants.controller';
import { ApiKeyGuard } from './auth/api-key.guard';
import { RateLimitGuard } from './auth/rate-limit.guard';
import { BootstrapTenant } from './auth/bootstrap-tenant.service';
import { GatewayConfig } from './gateway.config';
import { CollectionsController } from './knowledge/collections.controller';
import { ApiExceptionFilter } from './http/api-exception.filter';
import { requireJsonBody } from './http/json-content-type.middleware';
import { AgentModels } from './openai/agent-models.service';
import { ChatCompletionsController } from './openai/chat-completions.controller';
import { OpenAiModelsController } from './openai/openai-models.controller';
import { ModelsController } from './registry/models.controller';
import { McpGatewayConfig } from './mcp/mcp-gateway.config';
import { McpServersController } from './mcp/mcp-servers.controller';
import { UsageController } from './registry/usage.controller';
import { VendorKeysController } from './registry/vendor-keys.controller';
import { VendorsController } from './registry/vendors.controller';
import { RunsController } from './runs/runs.controller';
import { endedRuns } from './runs/run-event-stream';
import { RagflowRuns } from './runs/ragflow-run.source';
import { RunsService } from './runs/runs.service';
import { ThreadsController } from './threads/threads.controller';
import { ToolsController } from './tools/tools.controller';
import { UsersController } from './users/users.controller';

@Module({
  imports: [PlatformModule.forRoot({ service: 'gateway', poolSize: 20 }), ModelsModule.forRoot('gateway')],
  controllers: [
    AgentsController,
    RunsController,
    ThreadsController,
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
  providers: [
    { provide: GatewayConfig, useFactory: () => new GatewayConfig() },
    // Seals vendor keys; GatewayConfig validated SWITCHYARD_SECRET_KEY at start-up.
    {
      provide: SecretBox,
      useFactory: (c: GatewayConfig) => new SecretBox(c.secretKey),
      inject: [GatewayConfig],
    },
    { provide: APP_FILTER, useClass: ApiExceptionFilter },
    ApiKeyGuard,
    AdminTokenGuard,
    RateLimitGuard,
    BootstrapTenant,
    RunsService,
    RagflowRuns,
    AgentModels,
    NodeDirectory,
    { provide: McpGatewayConfig, useFactory: () => new McpGatewayConfig() },
    {
      provide: RunEventHub,
      useFactory: (redis: Redis, ds: DataSource) =>
        new RunEventHub(redis, redis.duplicate(), { endedRuns: (ids) => endedRuns(ds, ids) }),
      inject: [Redis, DataSource],
    },
  ],
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
