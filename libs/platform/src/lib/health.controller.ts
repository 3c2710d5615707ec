import { Controller, Get, Header, Res } from '@nestjs/common';
import { HealthCheck, HealthCheckService, type HealthIndicatorResult } from '@nestjs/terminus';
import type { Response } from 'express';
import { register } from 'prom-client';
import { Readiness } from './readiness';

const PROBE_TIMEOUT_MS = 2000;

@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly readiness: Readiness,
  ) {}

  /** Liveness: the process answers. */
  @Get('healthz')
  healthz(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** Readiness: Postgres, Redis and NATS reachable. */
  @Get('readyz')
  @HealthCheck()
  readyz() {
    return this.health.check(
      this.readiness.probes.map((probe) => async (): Promise<HealthIndicatorResult> => {
        try {
          await withTimeout(probe.check(), PROBE_TIMEOUT_MS);
          return { [probe.name]: { status: 'up' } };
        } catch (err) {
          return { [probe.name]: { status: 'down', message: (err as Error).message } };
        }
      }),
    );
  }

  @Get('metrics')
  @Header('Cache-Control', 'no-store')
  async metrics(@Res() res: Response): Promise<void> {
    res.setHeader('Content-Type', register.contentType);
    res.send(await register.metrics());
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    p.then(
      (v) => (clearTimeout(t), resolve(v)),
      (e: unknown) => (clearTimeout(t), reject(e)),
    );
  });
}
