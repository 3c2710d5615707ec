import { Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { JetStreamConnection } from '@switchyard/jetstream';
import { PlatformRepository } from './platform.repository';
import type { ReadinessProbe } from './platform.tokens';

/** The dependencies this process needs to do its work; `/readyz` answers 503 when one is down. */
@Injectable()
export class Readiness {
  readonly probes: ReadinessProbe[] = [];

  constructor(ds: DataSource, redis: Redis, nats: JetStreamConnection) {
    const postgres = new PlatformRepository(ds);
    this.probes.push(
      { name: 'postgres', check: () => postgres.ping() },
      {
        name: 'redis',
        check: async () => {
          if ((await redis.ping()) !== 'PONG') {
            throw new Error('redis did not answer PONG');
          }
        },
      },
      {
        name: 'nats',
        check: async () => {
          if (nats.nc.isClosed()) {
            throw new Error('connection closed');
          }
          await nats.nc.flush();
        },
      },
    );
  }
}
