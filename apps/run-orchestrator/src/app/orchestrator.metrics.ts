import { Counter, Histogram, register } from 'prom-client';

const existing = <T>(name: string): T | undefined => register.getSingleMetric(name) as T | undefined;

/**
 * Time of a step's transaction (lock, apply, bookkeeping, next tasks, commit); for a delta, from
 * its arrival: the wait for its group (StepCommitGroup) included.
 */
export const stepCommitSeconds =
  existing<Histogram>('switchyard_step_commit_seconds') ??
  new Histogram({
    name: 'switchyard_step_commit_seconds',
    help: "Duration of a step's Postgres transaction in the orchestrator",
    labelNames: ['kind'],
    buckets: [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1],
  });

/** Time from commit to events written and next tasks acknowledged by JetStream. */
export const stepDispatchSeconds =
  existing<Histogram>('switchyard_step_dispatch_seconds') ??
  new Histogram({
    name: 'switchyard_step_dispatch_seconds',
    help: 'Duration of writing events and publishing the next tasks after a commit',
    buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.5],
  });

export const runsEnded =
  existing<Counter>('switchyard_runs_ended_total') ??
  new Counter({
    name: 'switchyard_runs_ended_total',
    help: 'Runs that reached a terminal status',
    labelNames: ['status'],
  });

/** Tasks whose deadline passed and that the reaper dispatched again. */
export const reaperRedispatches =
  existing<Counter>('switchyard_reaper_redispatches_total') ??
  new Counter({
    name: 'switchyard_reaper_redispatches_total',
    help: 'Tasks dispatched again by the reaper after their deadline, by node',
    labelNames: ['node'],
  });

/** Steps committed together in one transaction (StepCommitGroup). */
export const groupCommitSteps =
  existing<Histogram>('switchyard_group_commit_steps') ??
  new Histogram({
    name: 'switchyard_group_commit_steps',
    help: 'Steps (of distinct runs) applied in one transaction by the delta consumer',
    buckets: [1, 2, 4, 8, 16, 32, 64],
  });

/** Groups that rolled back because one of their steps failed; their steps ran again alone. */
export const groupCommitFallbacks =
  existing<Counter>('switchyard_group_commit_fallbacks_total') ??
  new Counter({
    name: 'switchyard_group_commit_fallbacks_total',
    help: 'Step groups rolled back because a step failed, each step then run again alone',
  });
