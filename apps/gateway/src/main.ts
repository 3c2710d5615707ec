import type { NestExpressApplication } from '@nestjs/platform-express';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { SwaggerModule } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { STREAMS } from '@switchyard/contracts';
import { JetStreamConnection } from '@switchyard/jetstream';
import { runMigrationsLocked } from '@switchyard/persistence';
import { bootstrapService } from '@switchyard/platform';
import { AppModule } from './app/app.module';
import { GatewayConfig } from './app/gateway.config';
import { buildOpenApi } from './app/docs/openapi';
import { servicePortOrExit } from '@switchyard/config';

void bootstrapService(AppModule, {
  service: 'gateway',
  port: servicePortOrExit('gateway'),
  configure: async (app) => {
    const express = app as NestExpressApplication;
    express.useBodyParser('json', { limit: '1mb' });
    express.disable('x-powered-by');
    const { corsOrigins } = app.get(GatewayConfig);
    if (corsOrigins.length) {
      // Browser clients (a console, LangGraph's useStream) read the run's location and page cursors.
      app.enableCors({
        origin: corsOrigins.includes('*') ? true : corsOrigins,
        allowedHeaders: ['Authorization', 'x-api-key', 'Content-Type', 'Last-Event-ID', 'Accept'],
        exposedHeaders: ['Content-Location', 'Location', 'X-Pagination-Next', 'X-Pagination-Total'],
        maxAge: 600,
      });
    }
    SwaggerModule.setup('docs', app, buildOpenApi(), { jsonDocumentUrl: 'docs/json', raw: ['json'] });
    // The console (apps/console, built to dist/apps/console): static files; it signs in with an API key.
    const consoleDir = process.env['SWITCHYARD_CONSOLE_DIR'] || join(__dirname, '..', '..', 'console');
    if (existsSync(join(consoleDir, 'index.html'))) {
      express.useStaticAssets(consoleDir, { prefix: '/console', index: 'index.html', maxAge: 0 });
    } else {
      new Logger('Gateway').warn(
        `no console at ${consoleDir} (build it: npx vite build --config apps/console/vite.config.mts)`,
      );
    }
    await runMigrationsLocked(app.get(DataSource));
    // Runs are published to SY_RUNS: make sure it exists before the first request.
    await app.get(JetStreamConnection).ensureStream(STREAMS.runs);
    // Human input is delivered as a delta.
    await app.get(JetStreamConnection).ensureStream(STREAMS.deltas);
  },
});
