import 'reflect-metadata';
import type { INestApplication, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { ConfigException } from '@switchyard/config';
import {
  JetStreamConnection,
  type JetStreamConsumerOptions,
  JetStreamServer,
  type StreamSpec,
} from '@switchyard/jetstream';
import { watchConsumerLag } from './consumer-lag.metrics';
import { ServiceConfig } from './platform.tokens';
import { initTelemetry } from '@switchyard/telemetry';

export interface BootstrapOptions {
  service: string;
  /** HTTP port: the public API for the gateway, health and metrics for everyone. */
  port: number;
  /** JetStream consumers this service works from (none for the gateway). */
  consumers?: JetStreamConsumerOptions[];
  streams?: StreamSpec[];
  /** Runs after the app is created and before it listens (e.g. migrations, body parsers). */
  configure?: (app: INestApplication) => Promise<void> | void;
}

/** Starts a Switchyard service: HTTP + (optionally) the JetStream transport; exits cleanly on SIGTERM. */
export async function bootstrapService(
  module: Type<unknown>,
  opts: BootstrapOptions,
): Promise<INestApplication> {
  // Before the app is made: spans of start-up work are exported too (no-op unless configured).
  initTelemetry(opts.service);
  let app: INestApplication;
  try {
    app = await NestFactory.create(module, { bufferLogs: true });
  } catch (err) {
    if (err instanceof ConfigException) {
      process.stderr.write(`${opts.service}: ${err.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw err;
  }
  app.useLogger(app.get(Logger));
  // The process exits itself once shut down (code 0), instead of re-raising the signal: as PID 1
  // (a container, a Kubernetes pod) a signal's default action is never applied, and anything
  // left running would keep the process alive until the SIGKILL.
  app.enableShutdownHooks(undefined, { useProcessExit: true });
  exitWhenShutdownHangs(app.get(ServiceConfig).env.SWITCHYARD_DRAIN_TIMEOUT_MS, app.get(Logger));
  await opts.configure?.(app);
  // Start-up hooks first (the node registry loaded, this service's nodes registered, the model
  // registry seeded), then the consumers: a task taken before would see a half-ready service (a
  // planner restarted under load offered no tools to the tasks it took in its first milliseconds).
  await app.init();
  if (opts.consumers?.length) {
    const logger = app.get(Logger);
    app.connectMicroservice({
      strategy: new JetStreamServer({
        connection: app.get(JetStreamConnection),
        streams: opts.streams ?? [],
        consumers: opts.consumers,
        drainTimeoutMs: app.get(ServiceConfig).env.SWITCHYARD_DRAIN_TIMEOUT_MS,
        onDrained: (r) => logger.log({ msg: 'drained', service: opts.service, ...r }),
      }),
    });
    await app.startAllMicroservices();
    watchConsumerLag(app.get(JetStreamConnection), opts.consumers);
  }
  await app.listen(opts.port, process.env['HOST'] ?? '0.0.0.0');
  app.get(Logger).log({ msg: `${opts.service} listening`, port: opts.port, pid: process.pid });
  return app;
}

/** Past the drain and this much more, a shutdown that still has not ended exits anyway. */
const SHUTDOWN_OVERRUN_MS = 10_000;

/**
 * A last resort behind the drain: should a shutdown hook hang (a connection that never closes),
 * the process exits (code 1, logged) once the drain timeout and a margin have passed, before an
 * orchestrator's grace period runs out and it is killed without a word.
 */
function exitWhenShutdownHangs(drainTimeoutMs: number, logger: Logger): void {
  const arm = (signal: NodeJS.Signals) => {
    const timer = setTimeout(() => {
      logger.error({ msg: `shutdown after ${signal} did not end within the drain timeout; exiting` });
      process.exit(1);
    }, drainTimeoutMs + SHUTDOWN_OVERRUN_MS);
    timer.unref();
  };
  process.once('SIGTERM', arm);
  process.once('SIGINT', arm);
}
