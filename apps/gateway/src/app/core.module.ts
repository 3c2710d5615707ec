import { Global, Module } from '@nestjs/common';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { SecretBox } from '@switchyard/config';
import { RunEventHub } from '@switchyard/events';
import { FileStore, fileStoreFromEnv } from '@switchyard/persistence';
import { NodeDirectory } from '@switchyard/platform';
import { AdminTokenGuard } from './auth/admin-token.guard';
import { ApiKeyGuard } from './auth/api-key.guard';
import { BootstrapTenant } from './auth/bootstrap-tenant.service';
import { RateLimitGuard } from './auth/rate-limit.guard';
import { GatewayConfig } from './gateway.config';
import { HttpDrain } from './http/http-drain.service';
import { McpGatewayConfig } from './mcp/mcp-gateway.config';
import { RagflowRuns } from './runs/ragflow-run.source';
import { endedRuns } from './runs/run-event-stream';
import { RunEventStreams } from './runs/run-event-streams.service';
import { CreateRunUseCase } from './runs/create-run.usecase';
import { ResumeRunUseCase } from './runs/resume-run.usecase';
import { RunsRepository } from './runs/runs.repository';
import { RunsService } from './runs/runs.service';
import { RunsStream } from './runs/runs.stream';

const PROVIDERS = [
  { provide: GatewayConfig, useFactory: () => new GatewayConfig() },
  // Seals vendor keys; GatewayConfig validated SWITCHYARD_SECRET_KEY at start-up.
  {
    provide: SecretBox,
    useFactory: (c: GatewayConfig) => new SecretBox(c.secretKey),
    inject: [GatewayConfig],
  },
  ApiKeyGuard,
  AdminTokenGuard,
  RateLimitGuard,
  BootstrapTenant,
  RunsRepository,
  RunsStream,
  CreateRunUseCase,
  ResumeRunUseCase,
  RunsService,
  RagflowRuns,
  RunEventStreams,
  HttpDrain,
  NodeDirectory,
  // The tenant's files: uploads (a run's input files), and the files runs made.
  { provide: FileStore, useFactory: (ds: DataSource) => fileStoreFromEnv(ds), inject: [DataSource] },
  { provide: McpGatewayConfig, useFactory: () => new McpGatewayConfig() },
  {
    provide: RunEventHub,
    useFactory: (redis: Redis, ds: DataSource) =>
      new RunEventHub(redis, () => redis.duplicate(), { endedRuns: (ids: string[]) => endedRuns(ds, ids) }),
    inject: [Redis, DataSource],
  },
];

/**
 * The gateway's shared services (configuration, auth guards, runs, the event hub): one instance
 * each, visible to every feature module (the /v1 controllers and the LangGraph-compatible
 * adapter alike).
 */
@Global()
@Module({ providers: PROVIDERS, exports: PROVIDERS.map((p) => ('provide' in p ? p.provide : p)) })
export class GatewayCoreModule {}
