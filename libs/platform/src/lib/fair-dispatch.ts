import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { Counter, Gauge, Histogram, register } from 'prom-client';
import { DataSource } from 'typeorm';
import type { FairDispatchOptions, FairKey } from '@switchyard/jetstream';
import { PlatformRepository } from './platform.repository';

/** How often a process reads the tenants' weights. */
const WEIGHTS_REFRESH_MS = 5_000;

function metric<T>(name: string, make: () => T): T {
  return (register.getSingleMetric(name) as T | undefined) ?? make();
}

const queueWait = metric(
  'switchyard_queue_wait_seconds',
  () =>
    new Histogram({
      name: 'switchyard_queue_wait_seconds',
      help: 'Time a message waited from its publish to its start (stage task: at a node service; delta: at the orchestrator), per tenant and node',
      labelNames: ['stage', 'tenant', 'node', 'priority'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    }),
);
const inFlight = metric(
  'switchyard_tenant_in_flight',
  () =>
    new Gauge({
      name: 'switchyard_tenant_in_flight',
      help: "Tasks of a tenant being worked on by this process's handlers",
      labelNames: ['tenant'],
    }),
);
const held = metric(
  'switchyard_tenant_held',
  () =>
    new Gauge({
      name: 'switchyard_tenant_held',
      help: 'Tasks of a tenant this process holds for fair dispatch, not started yet',
      labelNames: ['tenant'],
    }),
);
const started = metric(
  'switchyard_tenant_tasks_started_total',
  () =>
    new Counter({
      name: 'switchyard_tenant_tasks_started_total',
      help: 'Tasks started per tenant and priority (their ratio is the tenants’ share of the service)',
      labelNames: ['tenant', 'priority'],
    }),
);

const admissionLimit = metric(
  'switchyard_node_admission_limit',
  () =>
    new Gauge({
      name: 'switchyard_node_admission_limit',
      help: 'Tasks this process lets run at once now: lowered while its event loop is saturated',
    }),
);

/** How often the event loop's utilisation is sampled. */
const LOOP_SAMPLE_MS = 100;

/**
 * Admission by CPU: how many tasks may run at once, adjusted every 100 ms from the event loop's
 * utilisation (the share of the last 100 ms it was not idle) — cut by a fifth while it is above
 * `busy`, raised by one while it is below and the limit was reached, between 1 and `max`. A
 * saturated process then holds further tasks (in fair order) instead of starting them all at once
 * and making every task slower, so a task of another tenant starts and finishes soon. I/O-bound
 * work (tasks waiting on model calls) leaves the loop idle and keeps the limit at `max`.
 * `busy` ≥ 1 turns it off.
 */
export class LoopAdmission {
  private limit: number;
  private lastRunning = 0;
  private last = performance.eventLoopUtilization();
  private readonly timer?: NodeJS.Timeout;

  constructor(
    private readonly max: number,
    private readonly busy: number,
  ) {
    this.limit = max;
    admissionLimit.set(max);
    if (busy < 1) {
      this.timer = setInterval(() => this.sample(), LOOP_SAMPLE_MS);
      this.timer.unref();
    }
  }

  readonly admit = (running: number): boolean => {
    this.lastRunning = running;
    return running < this.limit;
  };

  /** Adjusts the limit to a utilisation sample (exposed for tests). */
  adjust(utilization: number): number {
    if (utilization > this.busy) {
      this.limit = Math.max(1, Math.floor(this.limit * 0.8));
    } else if (this.lastRunning >= this.limit) {
      this.limit = Math.min(this.max, this.limit + 1);
    }
    admissionLimit.set(this.limit);
    return this.limit;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private sample(): void {
    const now = performance.eventLoopUtilization();
    this.adjust(performance.eventLoopUtilization(now, this.last).utilization);
    this.last = now;
  }
}

/** A task payload's tenant and priority (`''`, interactive when it names none). */
export function taskFairKey(data: unknown): FairKey {
  const d = data as { tenant_id?: unknown; priority?: unknown } | null;
  return {
    tenant: typeof d?.tenant_id === 'string' ? d.tenant_id : '',
    priority: d?.priority === 'batch' ? 'batch' : 'interactive',
  };
}

const nodeOf = (data: unknown): string => {
  const node = (data as { node?: unknown } | null)?.node;
  return typeof node === 'string' ? node.split('.')[0] : 'unknown';
};

/**
 * The tenants' weights as this process knows them: read from `tenants` every 5 s (only those
 * not 1), so `PATCH /v1/admin/tenants/:id {weight}` is in force everywhere within seconds. A
 * failed read keeps the last weights.
 */
@Injectable()
export class TenantWeights implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(TenantWeights.name);
  private weights = new Map<string, number>();
  private timer?: NodeJS.Timeout;

  private readonly tenants: PlatformRepository;

  constructor(@Inject(DataSource) ds: DataSource) {
    this.tenants = new PlatformRepository(ds);
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), WEIGHTS_REFRESH_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  weightOf(tenant: string): number {
    return this.weights.get(tenant) ?? 1;
  }

  async refresh(): Promise<void> {
    try {
      const rows = await this.tenants.weightedTenants();
      this.weights = new Map(rows.map((r) => [r.id, Number(r.weight)]));
    } catch (err) {
      this.logger.warn(`tenant weights not read (the last ones stay): ${(err as Error).message}`);
    }
  }
}

/**
 * The fair dispatch of a node service's task consumer: keyed by the task's tenant and priority,
 * weighted by `weights` once the app is up (1 for everyone before), admitted by `admission` (CPU),
 * measured per tenant.
 */
export function taskFairDispatch(
  prefetch: number,
  weights: { current?: TenantWeights },
  admission?: LoopAdmission,
  stage: 'task' | 'delta' = 'task',
): FairDispatchOptions {
  const running = new Map<string, number>();
  return {
    prefetch,
    keyOf: taskFairKey,
    ...(admission ? { admit: admission.admit } : {}),
    weightOf: (tenant) => weights.current?.weightOf(tenant) ?? 1,
    onStart: (key, data, waitedMs) => {
      const tenant = key.tenant || 'none';
      queueWait.observe({ stage, tenant, node: nodeOf(data), priority: key.priority }, waitedMs / 1000);
      started.inc({ tenant, priority: key.priority });
      running.set(tenant, (running.get(tenant) ?? 0) + 1);
      inFlight.set({ tenant }, running.get(tenant)!);
    },
    onEnd: (key) => {
      const tenant = key.tenant || 'none';
      const left = (running.get(tenant) ?? 1) - 1;
      if (left > 0) {
        running.set(tenant, left);
      } else {
        running.delete(tenant);
      }
      inFlight.set({ tenant }, left);
    },
    onHeld: (byTenant) => {
      held.reset();
      for (const [tenant, n] of byTenant) {
        held.set({ tenant: tenant || 'none' }, n);
      }
    },
  };
}
