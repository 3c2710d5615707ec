import { hostname } from 'node:os';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import type { KvEntry, QueuedIterator, Subscription } from 'nats';
import {
  CANCEL_FENCE_BUCKET,
  CANCEL_FENCE_TTL_MS,
  type CancelAck,
  cancelAckSubject,
  cancelSubject,
} from '@switchyard/contracts';
import { JetStreamConnection, encodeJson } from '@switchyard/jetstream';
import { ServiceConfig } from '@switchyard/platform';

// Bound on the start-up wait for the fence's current entries (an empty bucket answers at once).
const FENCE_LOAD_MAX_MS = 5_000;

interface Held {
  controller: AbortController;
  taskId: string;
  node: string;
}

/**
 * Knows which runs are cancelled and aborts their work in flight (LLM and HTTP calls take the
 * signal). Two ways in: the orchestrator's `sy.cancel.<run_id>` broadcast (fast) and the cancel
 * fence, a JetStream KV bucket every replica watches (durable: loaded before the service takes
 * tasks, caught up after a reconnect), so a replica that missed the broadcast still never starts
 * a task of a cancelled run. Each cancel learned while running is acknowledged on
 * `sy.cancel-ack.<run_id>` with the tasks this instance aborted.
 */
@Injectable()
export class CancelRegistry implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(CancelRegistry.name);
  private readonly inFlight = new Map<string, Set<Held>>();
  // Runs cancelled within the fence's lifetime: a task that arrives after the cancel is not started.
  private readonly cancelled = new LRUCache<string, true>({ max: 100_000, ttl: CANCEL_FENCE_TTL_MS });
  private readonly instance = `${hostname()}:${process.pid}`;
  private sub?: Subscription;
  private watcher?: QueuedIterator<KvEntry>;

  constructor(
    @Inject(JetStreamConnection) private readonly nats: JetStreamConnection,
    @Inject(ServiceConfig) private readonly config: ServiceConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.sub = this.nats.nc.subscribe(cancelSubject('*'), {
      callback: (err, msg) => {
        if (!err) {
          this.cancel(msg.subject.split('.')[2]);
        }
      },
    });
    const kv = await this.nats.kv(CANCEL_FENCE_BUCKET, { ttlMs: CANCEL_FENCE_TTL_MS });
    let loaded: () => void = () => undefined;
    const initial = new Promise<void>((resolve) => (loaded = resolve));
    let live = false;
    this.watcher = await this.nats.adminRetry(() => kv.watch({ key: '>', initializedFn: () => loaded() }));
    void (async () => {
      for await (const entry of this.watcher!) {
        if (entry.operation === 'PUT') {
          // Entries of the initial load are old cancels: remembered, not acknowledged.
          this.cancel(entry.key, live);
        }
      }
    })();
    const timer = setTimeout(loaded, FENCE_LOAD_MAX_MS);
    await initial;
    clearTimeout(timer);
    await new Promise((resolve) => setImmediate(resolve));
    live = true;
  }

  onApplicationShutdown(): void {
    this.sub?.unsubscribe();
    this.watcher?.stop();
  }

  /** Marks the run cancelled, aborts its work here and (by default) acknowledges once. */
  cancel(runId: string, acknowledge = true): void {
    if (this.cancelled.has(runId)) {
      return;
    }
    this.cancelled.set(runId, true);
    const held = [...(this.inFlight.get(runId) ?? [])];
    if (held.length) {
      this.logger.log({ msg: 'aborting work of a cancelled run', run_id: runId, tasks: held.length });
    }
    for (const h of held) {
      h.controller.abort(new Error(`run ${runId} was cancelled`));
    }
    if (!acknowledge) {
      return;
    }
    const ack: CancelAck = {
      run_id: runId,
      service: this.config.service,
      instance: this.instance,
      aborted: held.map((h) => ({ task_id: h.taskId, node: h.node })),
    };
    try {
      this.nats.nc.publish(cancelAckSubject(runId), encodeJson(ack));
    } catch (err) {
      this.logger.warn({ run_id: runId, msg: `cancel not acknowledged: ${(err as Error).message}` });
    }
  }

  isCancelled(runId: string): boolean {
    return this.cancelled.has(runId);
  }

  /** A signal aborted when the run is cancelled; call `release` when the work is over. */
  open(runId: string, task: { task_id: string; node: string }): { signal: AbortSignal; release: () => void } {
    const controller = new AbortController();
    if (this.cancelled.has(runId)) {
      // The cancel came while the task was being set up: never start the work.
      controller.abort(new Error(`run ${runId} was cancelled`));
    }
    let set = this.inFlight.get(runId);
    if (!set) {
      set = new Set();
      this.inFlight.set(runId, set);
    }
    const held: Held = { controller, taskId: task.task_id, node: task.node };
    set.add(held);
    return {
      signal: controller.signal,
      release: () => {
        set.delete(held);
        if (set.size === 0) {
          this.inFlight.delete(runId);
        }
      },
    };
  }
}
