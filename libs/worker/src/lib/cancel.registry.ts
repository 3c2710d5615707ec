import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import type { Subscription } from 'nats';
import { cancelSubject } from '@switchyard/contracts';
import { JetStreamConnection } from '@switchyard/jetstream';

/**
 * Listens to the orchestrator's `sy.cancel.<run_id>` broadcasts and aborts the work in flight for
 * that run (LLM and HTTP calls take the signal).
 */
@Injectable()
export class CancelRegistry implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(CancelRegistry.name);
  private readonly inFlight = new Map<string, Set<AbortController>>();
  // Runs cancelled recently: a task that arrives after the broadcast is not started at all.
  private readonly cancelled = new LRUCache<string, true>({ max: 10_000, ttl: 3600_000 });
  private sub?: Subscription;

  constructor(@Inject(JetStreamConnection) private readonly nats: JetStreamConnection) {}

  onApplicationBootstrap(): void {
    this.sub = this.nats.nc.subscribe(cancelSubject('*'), {
      callback: (err, msg) => {
        if (err) {
          return;
        }
        const runId = msg.subject.split('.')[2];
        this.cancel(runId);
      },
    });
  }

  onApplicationShutdown(): void {
    this.sub?.unsubscribe();
  }

  cancel(runId: string): void {
    this.cancelled.set(runId, true);
    const controllers = this.inFlight.get(runId);
    if (controllers) {
      this.logger.log({ msg: 'aborting work of a cancelled run', run_id: runId, tasks: controllers.size });
      for (const c of controllers) {
        c.abort(new Error(`run ${runId} was cancelled`));
      }
    }
  }

  isCancelled(runId: string): boolean {
    return this.cancelled.has(runId);
  }

  /** A signal aborted when the run is cancelled; call `release` when the work is over. */
  open(runId: string): { signal: AbortSignal; release: () => void } {
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
    set.add(controller);
    return {
      signal: controller.signal,
      release: () => {
        set.delete(controller);
        if (set.size === 0) {
          this.inFlight.delete(runId);
        }
      },
    };
  }
}
