import { DataSource } from 'typeorm';
import { STREAMS } from '@switchyard/contracts';
import { runMigrationsLocked } from '@switchyard/persistence';
import { bootstrapService } from '@switchyard/platform';
import { AppModule } from './app/app.module';

void bootstrapService(AppModule, {
  service: 'run-orchestrator',
  port: Number(process.env['PORT'] ?? process.env['ORCHESTRATOR_PORT'] ?? 8081),
  streams: [STREAMS.runs, STREAMS.tasks, STREAMS.deltas],
  consumers: [
    // One durable consumer per stream, shared by every orchestrator replica.
    {
      stream: STREAMS.runs.name,
      durable: 'orchestrator-runs',
      filter: 'sy.run.>',
      ackWaitMs: 30_000,
      maxDeliver: 20,
      concurrency: 32,
    },
    {
      stream: STREAMS.deltas.name,
      durable: 'orchestrator-deltas',
      filter: 'sy.delta.>',
      ackWaitMs: 30_000,
      maxDeliver: 20,
      concurrency: 32,
    },
  ],
  configure: async (app) => {
    await runMigrationsLocked(app.get(DataSource));
  },
});
