import { z } from 'zod';
import { loadConfig } from '@switchyard/config';

const schema = z.object({
  // A snapshot every N deltas bounds the cost of loading a long thread.
  SWITCHYARD_SNAPSHOT_EVERY: z.coerce.number().int().min(10).default(200),
  // Dispatches of one task (the first + re-dispatches after its deadline) before the run fails.
  SWITCHYARD_TASK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(3),
  SWITCHYARD_REAPER_INTERVAL_MS: z.coerce.number().int().min(100).max(60_000).default(1000),
  // How long a cancel waits for the services holding the run's tasks to acknowledge it.
  SWITCHYARD_CANCEL_ACK_WAIT_MS: z.coerce.number().int().min(0).max(30_000).default(1000),
});

export class OrchestratorConfig {
  readonly snapshotEvery: number;
  readonly taskMaxAttempts: number;
  readonly reaperIntervalMs: number;
  readonly cancelAckWaitMs: number;
  constructor(env: NodeJS.ProcessEnv = process.env) {
    const cfg = loadConfig(schema, env);
    this.snapshotEvery = cfg.SWITCHYARD_SNAPSHOT_EVERY;
    this.taskMaxAttempts = cfg.SWITCHYARD_TASK_MAX_ATTEMPTS;
    this.reaperIntervalMs = cfg.SWITCHYARD_REAPER_INTERVAL_MS;
    this.cancelAckWaitMs = cfg.SWITCHYARD_CANCEL_ACK_WAIT_MS;
  }
}
