import type { INestApplication, Type } from '@nestjs/common';
import { baseEnvSchema, loadConfigOrExit } from '@switchyard/config';
import { STREAMS, taskFilter } from '@switchyard/contracts';
import { LoopAdmission, TenantWeights, bootstrapService, taskFairDispatch } from '@switchyard/platform';

/** Starts a node service: HTTP health on `port`, and the shared durable consumer of its tasks. */
export function bootstrapNodeService(
  module: Type<unknown>,
  opts: { service: string; port: number; concurrency?: number },
): Promise<INestApplication> {
  const env = loadConfigOrExit(baseEnvSchema, opts.service);
  const weights: { current?: TenantWeights } = {};
  const concurrency = opts.concurrency ?? 16;
  const admission = new LoopAdmission(concurrency, env.SWITCHYARD_FAIR_LOOP_BUSY);
  return bootstrapService(module, {
    service: opts.service,
    port: opts.port,
    configure: (app) => {
      weights.current = app.get(TenantWeights);
    },
    streams: [STREAMS.tasks, STREAMS.deltas, STREAMS.runs],
    consumers: [
      {
        stream: STREAMS.tasks.name,
        durable: `svc-${opts.service}`,
        filter: taskFilter(opts.service),
        ackWaitMs: env.SWITCHYARD_ACK_WAIT_MS,
        // The runtime turns the last delivery's failure into the action's error; JetStream's own
        // limit sits above it so that message is never dropped silently.
        maxDeliver: 10,
        // Room for every replica's handler slots and held tasks (fair dispatch).
        maxAckPending: 10_000,
        concurrency,
        // Tasks start fairly across tenants (docs/adr/0012, fairness between tenants).
        fair: taskFairDispatch(env.SWITCHYARD_FAIR_PREFETCH, weights, admission),
      },
    ],
  });
}
