import {
  type DynamicModule,
  Global,
  Logger,
  Module,
  type OnApplicationShutdown,
  Inject,
} from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import Redis from 'ioredis';
import { LoggerModule } from 'nestjs-pino';
import { collectDefaultMetrics, register } from 'prom-client';
import { DataSource } from 'typeorm';
import { type BaseEnv, baseEnvSchema, loadConfigOrExit } from '@switchyard/config';
import { RunEventReader, RunEventWriter } from '@switchyard/events';
import { JetStreamConnection } from '@switchyard/jetstream';
import { PgStateSource, createDataSource } from '@switchyard/persistence';
import { shutdownTelemetry, traceIds } from '@switchyard/telemetry';
import { HealthController } from './health.controller';
import { ServiceConfig } from './platform.tokens';
import { Readiness } from './readiness';

export interface PlatformOptions {
  /** The service name: logs, metrics, NATS connection name, Postgres application_name. */
  service: string;
  /** Postgres pool size of this process. */
  poolSize?: number;
  /**
   * Binds a logger to each HTTP request (its lines name the request): the gateway's API. Other
   * services serve only health and metrics over HTTP, and the binding runs every request in an
   * AsyncLocalStorage, which on Node 20 switches on a hook that every promise of the process then
   * pays — 7 % of the orchestrator's allocation per step (tools/bench/PROFILE.md, round 14).
   */
  requestLogs?: boolean;
}

class Shutdown implements OnApplicationShutdown {
  constructor(
    @Inject(DataSource) private readonly ds: DataSource,
    @Inject(Redis) private readonly redis: Redis,
    @Inject(JetStreamConnection) private readonly nats: JetStreamConnection,
  ) {}
  async onApplicationShutdown(): Promise<void> {
    await this.nats.close().catch(() => undefined);
    this.redis.disconnect();
    await this.ds.destroy().catch(() => undefined);
    // The spans of the drain itself are exported before the process goes.
    await shutdownTelemetry();
  }
}

/**
 * What every Switchyard service stands on: validated config, structured logs, one Postgres pool,
 * one Redis client, one NATS connection, run events, health and metrics endpoints.
 */
@Global()
@Module({})
export class PlatformModule {
  static forRoot(opts: PlatformOptions): DynamicModule {
    const env: BaseEnv = loadConfigOrExit(baseEnvSchema, opts.service);
    if (!register.getSingleMetric('process_cpu_seconds_total')) {
      collectDefaultMetrics({ labels: { service: opts.service } });
    }
    const config: ServiceConfig = { service: opts.service, env };
    return {
      module: PlatformModule,
      imports: [
        TerminusModule.forRoot({ logger: false }),
        LoggerModule.forRoot({
          // No routes: the middleware is not bound, the root logger serves every line.
          ...(opts.requestLogs ? {} : { forRoutes: [] }),
          pinoHttp: {
            name: opts.service,
            level: env.LOG_LEVEL,
            autoLogging: false,
            redact: ['req.headers.authorization', 'req.headers.cookie', '*.api_key', '*.secret'],
            // A request's log lines name it, not its headers: pino-http binds the serialised request
            // to every request's logger, stringified and redacted at every request whatever the
            // level — with the headers, 9 % of the gateway's request handling (PROFILE.md, round 13).
            serializers: {
              req: (req: { id?: unknown; method?: string; url?: string; remoteAddress?: string }) => ({
                id: req.id,
                method: req.method,
                url: req.url,
                remoteAddress: req.remoteAddress,
              }),
            },
            // Every log line written inside a span carries its trace (trace_id, span_id).
            mixin: () => traceIds(),
            transport:
              env.LOG_FORMAT === 'pretty'
                ? { target: 'pino-pretty', options: { singleLine: true } }
                : undefined,
          },
        }),
      ],
      controllers: [HealthController],
      providers: [
        { provide: ServiceConfig, useValue: config },
        {
          provide: DataSource,
          useFactory: () =>
            createDataSource(env.DATABASE_URL, {
              poolSize: env.SWITCHYARD_DB_POOL_SIZE ?? opts.poolSize,
              name: opts.service,
              onConnectionError: (err) => new Logger('Postgres').warn(`connection lost: ${err.message}`),
            }),
        },
        {
          provide: Redis,
          useFactory: () =>
            new Redis(env.REDIS_URL, {
              maxRetriesPerRequest: 3,
              connectionName: opts.service,
              // The commands a tick issues go out in one write (a group commit's step events, a
              // task's start with its other commands): a socket write is a node's costliest call.
              enableAutoPipelining: true,
            }),
        },
        {
          provide: JetStreamConnection,
          useFactory: () =>
            JetStreamConnection.connect({
              servers: env.NATS_URL,
              name: `${opts.service}-${process.pid}`,
              replicas: env.SWITCHYARD_NATS_REPLICAS,
            }),
        },
        { provide: RunEventWriter, useFactory: (redis: Redis) => new RunEventWriter(redis), inject: [Redis] },
        { provide: RunEventReader, useFactory: (redis: Redis) => new RunEventReader(redis), inject: [Redis] },
        {
          provide: PgStateSource,
          useFactory: (ds: DataSource) => new PgStateSource(ds),
          inject: [DataSource],
        },
        Readiness,
        Shutdown,
      ],
      exports: [
        ServiceConfig,
        DataSource,
        Redis,
        JetStreamConnection,
        RunEventWriter,
        RunEventReader,
        PgStateSource,
        Readiness,
      ],
    };
  }
}
