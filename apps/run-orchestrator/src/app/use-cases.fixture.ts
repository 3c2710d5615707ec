// Test support (the app never imports it): the orchestrator's use cases wired as AppModule wires
// them, on a migrated database of their own, with real Redis for the run events. NATS is the one
// stand-in: a recording publisher, and the node registry (a KV bucket) as a fixed map.
import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import type { DataSource } from 'typeorm';
import { baseEnvSchema, loadConfig } from '@switchyard/config';
import {
  type DeltaMessage,
  type NodeAnswer,
  type NodeRegistration,
  type RunEvent,
  type TaskMessage,
  nodeDelta,
} from '@switchyard/contracts';
import { RunEventReader, RunEventWriter, eventsKey } from '@switchyard/events';
import type { JetStreamConnection, PublishOptions } from '@switchyard/jetstream';
import {
  PgStateSource,
  createDataSource,
  ensureDatabase,
  runMigrationsLocked,
} from '@switchyard/persistence';
import { GraphNodesRegistrar, NodeDirectory, type ServiceConfig } from '@switchyard/platform';
import { RecentDeltas, StateCache } from '@switchyard/state';
import { dropDatabase } from '@switchyard/testing';
import { ApplyDeltaUseCase } from './apply-delta.usecase';
import { CancelFence } from './cancel-fence.service';
import { StepCommitGroup } from './group-commit';
import { InlineNodes } from './inline-nodes.service';
import { OrchestratorConfig } from './orchestrator.config';
import { RunStepper } from './run-stepper.service';
import { StartRunUseCase } from './start-run.usecase';
import { TaskOutbox } from './task-outbox.service';
import { SnapshotWriter } from './snapshot-writer.service';
import { TaskReaper } from './task-reaper.service';

/** What the outbox hands to JetStream: the subject, the task message and its de-duplication id. */
export interface Published {
  subject: string;
  message: TaskMessage;
  msgId: string;
}

/** Stands in for JetStream: records each publish (the only NATS call these paths make). */
class RecordingNats {
  readonly published: Published[] = [];

  publish(subject: string, message: unknown, opts: PublishOptions): Promise<void> {
    this.published.push({ subject, message: message as TaskMessage, msgId: opts.msgId });
    return Promise.resolve();
  }
}

/** The `sy_nodes` registry as a fixed map (the real one is a NATS KV bucket). */
class FixedNodeDirectory extends NodeDirectory {
  constructor(private readonly registrations: ReadonlyMap<string, NodeRegistration>) {
    super(undefined as unknown as JetStreamConnection);
  }

  override lookup(name: string): Promise<NodeRegistration | undefined> {
    return Promise.resolve(this.registrations.get(name));
  }
}

/** A node served by `service` (a task subject `sy.task.<service>.<node>`). */
export function serviceNode(name: string, service: string): NodeRegistration {
  return {
    name,
    service,
    kind: 'service',
    tool: false,
    description: name,
    input_schema: { type: 'object' },
    idempotent: true,
    registered_at: new Date().toISOString(),
  };
}

/** The default agent's nodes the specs route through. */
export const NODES = [serviceNode('intake', 'planner'), serviceNode('planner', 'planner')];

export interface OrchestratorFixture {
  ds: DataSource;
  config: OrchestratorConfig;
  startRun: StartRunUseCase;
  applyDelta: ApplyDeltaUseCase;
  reaper: TaskReaper;
  /** The orchestrator's state cache (shared by the use cases). */
  cache: StateCache;
  /** Every task the outbox published, in order. */
  published: Published[];
  /** Those of the run. */
  publishedFor(runId: string): Published[];
  /** The run's events as the outbox wrote them to Redis. */
  events(runId: string): Promise<RunEvent[]>;
  close(): Promise<void>;
}

/**
 * A migrated database named `name` (dropped by `close`), and the use cases on it. `env`: the
 * orchestrator's settings (OrchestratorConfig), defaults otherwise.
 */
export async function openOrchestrator(
  name: string,
  env: Record<string, string> = {},
): Promise<OrchestratorFixture> {
  const url = new URL(process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  url.pathname = `/${name}`;
  await ensureDatabase(url.toString());
  const ds = await createDataSource(url.toString(), { poolSize: 6, name });
  await runMigrationsLocked(ds);
  const redis = new Redis(process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 2 });
  const config = new OrchestratorConfig(env);
  const service: ServiceConfig = {
    service: 'run-orchestrator',
    env: loadConfig(baseEnvSchema, { DATABASE_URL: url.toString() }),
  };
  const recording = new RecordingNats();
  const nats = recording as unknown as JetStreamConnection;
  const directory = new FixedNodeDirectory(new Map(NODES.map((n) => [n.name, n])));
  const source = new PgStateSource(ds);
  const cache = new StateCache(source, 100);
  const recent = new RecentDeltas(8, 32 * 1024, 100);
  const inline = new InlineNodes(config, new GraphNodesRegistrar(nats));
  const stepper = new RunStepper(directory, service, inline);
  const reader = new RunEventReader(redis);
  const outbox = new TaskOutbox(
    ds,
    nats,
    new RunEventWriter(redis),
    reader,
    new CancelFence(ds, nats, directory, config),
    config,
  );
  const snapshots = new SnapshotWriter(ds, config);
  const startRun = new StartRunUseCase(ds, cache, recent, source, stepper, outbox, config, snapshots);
  const group = new StepCommitGroup(ds, config.groupCommit.maxSteps, config.groupCommit.workers);
  const runIds = new Set<string>();
  return {
    ds,
    config,
    startRun,
    cache,
    applyDelta: new ApplyDeltaUseCase(
      cache,
      recent,
      stepper,
      outbox,
      startRun,
      config,
      group,
      inline,
      snapshots,
    ),
    reaper: new TaskReaper(ds, stepper, outbox, startRun, config, service, directory),
    published: recording.published,
    publishedFor: (runId) => recording.published.filter((p) => p.message.run_id === runId),
    events: (runId) => {
      runIds.add(runId);
      return reader.after(runId, null, 1000);
    },
    close: async () => {
      // The outbox's batched published marks go out before the database does (a batch already
      // under way ends within its MARK_BATCH_MS).
      await new Promise((resolve) => setTimeout(resolve, 300));
      await outbox.beforeApplicationShutdown();
      await snapshots.beforeApplicationShutdown();
      outbox.onApplicationShutdown();
      const runs = (await ds.query('SELECT id FROM runs')) as { id: string }[];
      if (runs.length) {
        await redis.del(...runs.map((r) => eventsKey(r.id)));
      }
      redis.disconnect();
      await ds.destroy();
      await dropDatabase(url.toString());
    },
  };
}

/**
 * The fixture for the spec's tests: opened before them on a database named after `spec`, closed
 * after them. (The object is filled in by `beforeAll`.)
 */
export function useOrchestrator(spec: string, env: Record<string, string> = {}): OrchestratorFixture {
  jest.setTimeout(60_000);
  const fixture = {} as OrchestratorFixture;
  beforeAll(async () => {
    Object.assign(fixture, await openOrchestrator(`switchyard_spec_${spec}_${process.pid}`, env));
  });
  afterAll(async () => {
    await fixture.close?.();
  });
  return fixture;
}

/** A tenant; `maxRunning`: its own running cap (tenants.max_running_runs). */
export async function createTenant(ds: DataSource, maxRunning?: number): Promise<string> {
  const [row] = (await ds.query('INSERT INTO tenants (name, max_running_runs) VALUES ($1, $2) RETURNING id', [
    `tenant-${randomUUID()}`,
    maxRunning ?? null,
  ])) as { id: string }[];
  return row.id;
}

/** A queued run of the default agent on a new thread, as the gateway creates one. */
export async function queueRun(
  ds: DataSource,
  tenantId: string,
  opts: { prompt?: string; maxSteps?: number } = {},
): Promise<{ runId: string; threadId: string }> {
  const threadId = randomUUID();
  const runId = randomUUID();
  await ds.query('INSERT INTO threads (id, tenant_id, agent_id) VALUES ($1, $2, $3)', [
    threadId,
    tenantId,
    'default',
  ]);
  await ds.query(
    `INSERT INTO runs (id, tenant_id, thread_id, agent_id, status, input, max_steps)
     VALUES ($1, $2, $3, 'default', 'queued', $4, $5)`,
    [
      runId,
      tenantId,
      threadId,
      JSON.stringify({ prompt: opts.prompt ?? 'What is 6 * 7?' }),
      opts.maxSteps ?? 50,
    ],
  );
  return { runId, threadId };
}

/** The delta a node service answers `task` with. */
export function answer(task: TaskMessage, out: Partial<NodeAnswer> & Pick<NodeAnswer, 'next'>): DeltaMessage {
  return {
    task_id: task.task_id,
    run_id: task.run_id,
    node: task.node,
    base_version: task.version,
    delta: nodeDelta(
      task.node,
      { summary: `${task.node} done`, result: null, ...out },
      {
        startedAt: new Date().toISOString(),
        attempt: task.attempt,
      },
    ),
  };
}
