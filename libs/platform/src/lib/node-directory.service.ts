import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { KV, QueuedIterator, KvEntry } from 'nats';
import { NODE_REGISTRY_BUCKET, type NodeRegistration, NodeRegistrationSchema } from '@switchyard/contracts';
import { JetStreamConnection, decodeJson } from '@switchyard/jetstream';

// Bound on the start-up wait for the registry's initial entries (an empty bucket answers at once).
const INITIAL_LOAD_MAX_MS = 5_000;

/**
 * A watched, in-memory copy of the `sy_nodes` registry: the orchestrator routes with it at no
 * extra round trip, the planner reads its tool catalogue from it. A miss falls back to one KV
 * read (a service that just started).
 */
@Injectable()
export class NodeDirectory implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(NodeDirectory.name);
  private readonly nodes = new Map<string, NodeRegistration>();
  private kv?: KV;
  private watcher?: QueuedIterator<KvEntry>;

  constructor(@Inject(JetStreamConnection) private readonly nats: JetStreamConnection) {}

  async onApplicationBootstrap(): Promise<void> {
    this.kv = await this.nats.kv(NODE_REGISTRY_BUCKET);
    // Start-up waits for the registry's current entries: a service that takes tasks right after
    // a restart must see every node (the planner would otherwise offer a partial tool list).
    let initialized: (complete: boolean) => void = () => undefined;
    const loaded = new Promise<boolean>((resolve) => (initialized = resolve));
    const kv = this.kv;
    this.watcher = await this.nats.adminRetry(() =>
      kv.watch({ key: '>', initializedFn: () => initialized(true) }),
    );
    void (async () => {
      for await (const entry of this.watcher!) {
        if (entry.operation === 'PUT') {
          const reg = this.parse(entry.value);
          if (reg) {
            this.nodes.set(reg.name, reg);
          }
        } else {
          this.nodes.delete(entry.key);
        }
      }
    })();
    const timer = setTimeout(() => initialized(false), INITIAL_LOAD_MAX_MS);
    const complete = await loaded;
    clearTimeout(timer);
    // The entries are queued by then; one macrotask lets the loop above drain them.
    await new Promise((resolve) => setImmediate(resolve));
    if (complete) {
      return;
    }
    // The watch was slow to deliver (a start under load): what it has not delivered yet is read
    // directly, since the first task after a restart must see every registered node.
    const missing: string[] = [];
    for await (const key of await this.nats.adminRetry(() => kv.keys())) {
      if (!this.nodes.has(key)) {
        missing.push(key);
      }
    }
    await Promise.all(missing.map((key) => this.lookup(key)));
    if (missing.length) {
      this.logger.log(`node registry: ${missing.length} entr(ies) read directly at start-up`);
    }
  }

  onApplicationShutdown(): void {
    this.watcher?.stop();
  }

  async lookup(name: string): Promise<NodeRegistration | undefined> {
    const known = this.nodes.get(name);
    if (known || !this.kv) {
      return known;
    }
    const entry = await this.kv.get(name);
    const reg = entry && entry.operation === 'PUT' ? this.parse(entry.value) : undefined;
    if (reg) {
      this.nodes.set(name, reg);
    }
    return reg;
  }

  /** Every registered node (the planner's tool catalogue is the `tool` ones). */
  list(): NodeRegistration[] {
    return [...this.nodes.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  private parse(value: Uint8Array): NodeRegistration | undefined {
    try {
      const parsed = NodeRegistrationSchema.safeParse(decodeJson(value));
      if (parsed.success) {
        return parsed.data;
      }
      this.logger.warn(`ignoring an invalid sy_nodes entry: ${parsed.error.message}`);
    } catch {
      this.logger.warn('ignoring a sy_nodes entry that is not JSON');
    }
    return undefined;
  }
}
