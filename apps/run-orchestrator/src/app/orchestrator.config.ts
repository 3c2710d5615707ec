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
  // Snapshots kept per thread (older ones are dropped when a new one is written).
  SWITCHYARD_SNAPSHOT_KEEP: z.coerce.number().int().min(1).max(1000).default(3),
  // Retention of finished runs' bookkeeping (task rows, full tool outputs, tool receipts); 0 keeps it.
  SWITCHYARD_RETENTION_HOURS: z.coerce.number().min(0).default(168),
  // Deltas of runs finished longer ago are compacted into a snapshot (their actions and the
  // thread's versions before it can no longer be read); 0 (the default) keeps the whole history.
  SWITCHYARD_HISTORY_RETENTION_HOURS: z.coerce.number().min(0).default(0),
  // How long a finished run's events stay in Redis (its history is rebuilt from Postgres after).
  SWITCHYARD_EVENTS_TTL_HOURS: z.coerce.number().min(0.001).default(24),
  SWITCHYARD_RETENTION_INTERVAL_MS: z.coerce.number().int().min(100).max(86_400_000).default(3_600_000),
  // Runs of one tenant running at once (tenants.max_running_runs overrides it); the others wait
  // queued, so a tenant's burst cannot fill the task queues ahead of the other tenants' runs.
  SWITCHYARD_TENANT_MAX_RUNNING: z.coerce.number().int().min(1).max(100_000).default(64),
  // Pure graph components (libs/graph PURE_COMPONENTS; PuppyEngine ifelse and modify edges) run
  // inside the step's transaction here instead of a round trip to the planner; off sends every
  // node over NATS.
  SWITCHYARD_INLINE_NODES: z.enum(['on', 'off']).default('on'),
  // Inline steps one transaction may chain, and for how long, before the next goes over NATS
  // (so one run's long pure loop does not hold a delta worker).
  SWITCHYARD_INLINE_MAX_CHAIN: z.coerce.number().int().min(1).max(10_000).default(64),
  SWITCHYARD_INLINE_MAX_MS: z.coerce.number().int().min(1).max(10_000).default(50),
  // Group commit: steps of different runs applied in one transaction, at most this many (1: each
  // step commits alone), by at most GROUP_COMMIT_WORKERS transactions at once.
  SWITCHYARD_GROUP_COMMIT_MAX: z.coerce.number().int().min(1).max(256).default(32),
  SWITCHYARD_GROUP_COMMIT_WORKERS: z.coerce.number().int().min(1).max(64).default(2),
});

export class OrchestratorConfig {
  readonly snapshotEvery: number;
  readonly taskMaxAttempts: number;
  readonly reaperIntervalMs: number;
  readonly cancelAckWaitMs: number;
  readonly snapshotKeep: number;
  /** 0 = kept forever. */
  readonly retentionMs: number;
  /** 0 = kept forever. */
  readonly historyRetentionMs: number;
  readonly eventsTtlSeconds: number;
  readonly retentionIntervalMs: number;
  readonly tenantMaxRunning: number;
  readonly inline: { enabled: boolean; maxChain: number; maxMs: number };
  readonly groupCommit: { maxSteps: number; workers: number };
  constructor(env: NodeJS.ProcessEnv = process.env) {
    const cfg = loadConfig(schema, env);
    this.snapshotEvery = cfg.SWITCHYARD_SNAPSHOT_EVERY;
    this.taskMaxAttempts = cfg.SWITCHYARD_TASK_MAX_ATTEMPTS;
    this.reaperIntervalMs = cfg.SWITCHYARD_REAPER_INTERVAL_MS;
    this.cancelAckWaitMs = cfg.SWITCHYARD_CANCEL_ACK_WAIT_MS;
    this.snapshotKeep = cfg.SWITCHYARD_SNAPSHOT_KEEP;
    this.retentionMs = Math.round(cfg.SWITCHYARD_RETENTION_HOURS * 3_600_000);
    this.historyRetentionMs = Math.round(cfg.SWITCHYARD_HISTORY_RETENTION_HOURS * 3_600_000);
    this.eventsTtlSeconds = Math.max(1, Math.round(cfg.SWITCHYARD_EVENTS_TTL_HOURS * 3600));
    this.retentionIntervalMs = cfg.SWITCHYARD_RETENTION_INTERVAL_MS;
    this.tenantMaxRunning = cfg.SWITCHYARD_TENANT_MAX_RUNNING;
    this.inline = {
      enabled: cfg.SWITCHYARD_INLINE_NODES === 'on',
      maxChain: cfg.SWITCHYARD_INLINE_MAX_CHAIN,
      maxMs: cfg.SWITCHYARD_INLINE_MAX_MS,
    };
    this.groupCommit = {
      maxSteps: cfg.SWITCHYARD_GROUP_COMMIT_MAX,
      workers: cfg.SWITCHYARD_GROUP_COMMIT_WORKERS,
    };
  }
}
