import { DataSource } from 'typeorm';
import { baseEnvSchema, loadConfigOrExit, servicePortOrExit } from '@switchyard/config';
import { STREAMS, SUBJECT_PATTERNS } from '@switchyard/contracts';
import { runMigrationsLocked } from '@switchyard/persistence';
import { TenantWeights, bootstrapService, taskFairDispatch } from '@switchyard/platform';
import { AppModule } from './app/app.module';

const env = loadConfigOrExit(baseEnvSchema, 'run-orchestrator');
const DELTA_CONCURRENCY = 32;
const weights: { current?: TenantWeights } = {};

void bootstrapService(AppModule, {
  service: 'run-orchestrator',
  port: servicePortOrExit('run-orchestrator'),
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
      maxAckPending: 10_000,
      concurrency: DELTA_CONCURRENCY,
      // Steps are applied fairly across tenants too, as node services start tasks (a burst's
      // deltas do not queue another tenant's behind them). No admission by CPU here: the
      // orchestrator is every step's hop, and holding its steps back held back every run
      // (bench:fairness: A's burst alone took 1.4x as long).
      fair: taskFairDispatch(env.SWITCHYARD_FAIR_PREFETCH, weights, undefined, 'delta'),
    },
  ],
  configure: async (app) => {
    weights.current = app.get(TenantWeights);
    await runMigrationsLocked(app.get(DataSource));
  },
});
