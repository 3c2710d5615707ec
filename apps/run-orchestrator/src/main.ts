import { DataSource } from 'typeorm';
import { baseEnvSchema, loadConfigOrExit } from '@switchyard/config';
import { STREAMS, SUBJECT_PATTERNS } from '@switchyard/contracts';
import { runMigrationsLocked } from '@switchyard/persistence';
import { bootstrapService } from '@switchyard/platform';
import { AppModule } from './app/app.module';

const env = loadConfigOrExit(baseEnvSchema, 'run-orchestrator');

void bootstrapService(AppModule, {
  service: 'run-orchestrator',
  port: Number(process.env['PORT'] ?? process.env['ORCHESTRATOR_PORT'] ?? 8081),
  streams: [STREAMS.runs, STREAMS.tasks, STREAMS.deltas],
  consumers: [
    // One durable consumer per stream, shared by every orchestrator replica.
    {
      stream: STREAMS.runs.name,
      durable: 'orchestrator-runs',
      filter: SUBJECT_PATTERNS.runs,
      ackWaitMs: env.SWITCHYARD_ACK_WAIT_MS,
      maxDeliver: 20,
      concurrency: 32,
    },
    {
      stream: STREAMS.deltas.name,
      durable: 'orchestrator-deltas',
      filter: SUBJECT_PATTERNS.deltas,
      ackWaitMs: env.SWITCHYARD_ACK_WAIT_MS,
      maxDeliver: 20,
      concurrency: 32,
    },
  ],
  configure: async (app) => {
    await runMigrationsLocked(app.get(DataSource));
  },
});
