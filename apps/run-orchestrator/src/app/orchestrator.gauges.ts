import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { Gauge, register } from 'prom-client';
import { DataSource } from 'typeorm';
import { RunsRepository } from './runs.repository';

/**
 * Gauges read from Postgres when Prometheus scrapes (each query on a partial index): runs not
 * yet over, by status, and the transactional outbox's backlog — tasks committed but not yet
 * published to JetStream. Every orchestrator replica reports the same numbers: take `max`.
 */
@Injectable()
export class OrchestratorGauges implements OnModuleInit {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  onModuleInit(): void {
    if (register.getSingleMetric('switchyard_runs_active')) {
      return;
    }
    const runs = new RunsRepository(this.ds);
    new Gauge({
      name: 'switchyard_runs_active',
      help: 'Runs not yet over, by status (queued, running, waiting)',
      labelNames: ['status'],
      async collect() {
        const rows = await runs.activeRuns();
        this.reset();
        for (const status of ['queued', 'running', 'waiting']) {
          this.set({ status }, rows.find((r) => r.status === status)?.n ?? 0);
        }
      },
    });
    new Gauge({
      name: 'switchyard_outbox_backlog',
      help: 'Tasks committed but not yet published to JetStream, and the age in seconds of the oldest',
      labelNames: ['measure'],
      async collect() {
        const row = await runs.outboxBacklog();
        this.set({ measure: 'tasks' }, row?.n ?? 0);
        this.set({ measure: 'oldest_seconds' }, row?.age ?? 0);
      },
    });
  }
}
