// PlatformModule in a real Nest app over the real Postgres, Redis and NATS (deploy/local/env.sh).
import 'reflect-metadata';
import { Controller, Get, type INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { storage } from 'nestjs-pino/storage';
import { ensureDatabase } from '@switchyard/persistence';
import { testDatabaseUrl } from '@switchyard/testing';
import { PlatformModule } from './platform.module';

jest.setTimeout(30_000);

@Controller()
class ProbeController {
  /** Whether this request runs with a request-bound logger (nestjs-pino's store). */
  @Get('probe')
  probe(): { bound: boolean } {
    return { bound: storage.getStore() !== undefined };
  }
}

async function serve(requestLogs: boolean): Promise<{ app: INestApplication; url: string }> {
  @Module({
    imports: [PlatformModule.forRoot({ service: `platform-spec-${String(requestLogs)}`, requestLogs })],
    controllers: [ProbeController],
  })
  class ProbeModule {}
  const app = await NestFactory.create(ProbeModule, { logger: false, abortOnError: false });
  await app.listen(0, '127.0.0.1');
  return { app, url: (await app.getUrl()).replace('[::1]', '127.0.0.1') };
}

describe(PlatformModule.name, () => {
  const saved = { ...process.env };
  beforeAll(async () => {
    process.env['LOG_LEVEL'] = 'silent';
    process.env['DATABASE_URL'] = testDatabaseUrl();
    await ensureDatabase(testDatabaseUrl());
  });
  afterAll(() => {
    process.env = saved;
  });

  it('binds no logger to HTTP requests by default: health and metrics need none', async () => {
    const { app, url } = await serve(false);
    try {
      const res = await fetch(`${url}/probe`);

      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ bound: false });
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('binds a logger to every HTTP request of a service that asks for it (the gateway)', async () => {
    const { app, url } = await serve(true);
    try {
      expect(await (await fetch(`${url}/probe`)).json()).toEqual({ bound: true });
    } finally {
      await app.close();
    }
  });
});
